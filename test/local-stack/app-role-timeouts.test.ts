// The database's timeouts (sql/0016, sql/0017) reach the role the app runs as, even one made after
// the migrations, holding only the app's rights and no setting of its own: seen through the app's
// own SQL port (the Neon driver, over the local endpoint logged in as that role).
import { randomBytes } from "node:crypto";
import { afterAll, expect, it } from "vitest";
import { DatabaseError } from "../../core/ports/sql.ts";
import { startNeonEndpoint } from "../../dev/local-stack/neon-endpoint/endpoint.ts";
import { createPgBackend } from "../../dev/local-stack/neon-endpoint/pg-backend.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { runStatement } from "../../dev/support/run-statement.ts";
import { LOCAL_POSTGRES_URL } from "../../dev/support/scratch-schema.ts";
import { migrate } from "../../edge/migrate/migrate.ts";
import { createNeonSql } from "../../edge/neon/neon-sql.ts";

const TIMEOUTS = ["statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"];

describeWithPostgres("the timeouts of the app's own role [postgres]", () => {
  const role = `app_only_${randomBytes(4).toString("hex")}`;
  const databases: TestDatabase[] = [];
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await Promise.all(databases.map((created) => created.drop()));
    await runStatement(LOCAL_POSTGRES_URL, `DROP ROLE IF EXISTS ${role}`);
  });

  /** A migrated database, then a role made for the app with its rights only, and its SQL port. */
  async function appPortOn(besideOtherTables: boolean) {
    const database = await createTestDatabase();
    databases.push(database);
    const owner = createPgBackend(database.url, { max: 1 });
    try {
      await migrate(owner, undefined, { besideOtherTables });
      await owner.exec(`DO $$ BEGIN CREATE ROLE ${role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
        GRANT USAGE ON SCHEMA public TO ${role};
        GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role};
        GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${role};`);
    } finally {
      await owner.close();
    }
    const roleUrl = Object.assign(new URL(database.url), { username: role, password: "" });
    const backend = createPgBackend(roleUrl.toString(), { max: 2 });
    const password = randomBytes(12).toString("hex");
    const endpoint = await startNeonEndpoint({ backend, credentials: { password, user: role } });
    closers.push(
      () => backend.close(),
      () => endpoint.close(),
    );
    const name = new URL(database.url).pathname.slice(1);
    return createNeonSql({
      databaseUrl: `postgres://${role}:${password}@127.0.0.1:${endpoint.port}/${name}`,
      fetchEndpoint: endpoint.url,
    });
  }

  async function shown(sql: Awaited<ReturnType<typeof appPortOn>>): Promise<string[]> {
    const values: string[] = [];
    for (const name of TIMEOUTS) values.push(String((await sql.query(`SHOW ${name}`))[0]?.[name]));
    return values;
  }

  it("binds a role made after the migrations, with no DDL rights and no setting of its own", async () => {
    const sql = await appPortOn(false);
    expect(await shown(sql)).toEqual(["5s", "4s", "5s"]);
    expect(
      await sql.query("SELECT rolsuper OR rolcreaterole AS any FROM pg_roles WHERE rolname = current_user"),
    ).toEqual([{ any: false }]);
    const ddl = await sql.query("CREATE TABLE intruder (id int)").catch((error: unknown) => error);
    expect(ddl).toBeInstanceOf(DatabaseError);
    expect(ddl).toMatchObject({ code: "42501" });
    const set = await sql.query(
      "SELECT setconfig FROM pg_db_role_setting WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)",
    );
    expect(set).toEqual([]);
  });

  it("beside another application's tables, leaves the database's sessions to it (the app's role then needs its own)", async () => {
    const sql = await appPortOn(true);
    expect(await shown(sql)).toEqual(["0", "0", "0"]);
  });
});
