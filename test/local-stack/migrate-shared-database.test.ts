// Pointed at a database others use, the migrations change nothing of theirs: a schema holding
// tables the project did not make is refused with one line unless MIGRATE_BESIDE_OTHER_TABLES asks
// for it (dev/migrate.ts), and then the project's timeouts are its own role's (sql/0016, 0017). In a
// database of its own they are every role's, so they reach the app's whatever it is.
import { randomBytes } from "node:crypto";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { SqlBackend } from "../../dev/local-stack/neon-endpoint/backend.ts";
import { createPgBackend } from "../../dev/local-stack/neon-endpoint/pg-backend.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { runStatement } from "../../dev/support/run-statement.ts";
import { LOCAL_POSTGRES_URL } from "../../dev/support/scratch-schema.ts";
import {
  BESIDE_OTHER_TABLES_SETTING,
  DEFAULT_MIGRATIONS_DIR,
  migrate,
  migrationFiles,
  OtherTablesError,
} from "../../edge/migrate/migrate.ts";

const OWN_ROLE_FILE = "0016_timeouts_for_own_role.sql";
const EVERY_ROLE_FILE = "0017_timeouts_for_every_role.sql";
const TIMEOUTS = ["statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"];

describeWithPostgres("migrating into a database others use [postgres]", () => {
  const databases: TestDatabase[] = [];
  const backends: SqlBackend[] = [];
  const otherRole = `other_client_${randomBytes(4).toString("hex")}`;
  let dirBefore: string;
  let filesFromOwnRole: string[];

  const database = async () => {
    const created = await createTestDatabase();
    databases.push(created);
    const backend = createPgBackend(created.url, { max: 1 });
    backends.push(backend);
    return { url: created.url, backend };
  };

  /** What a fresh session of `role` (the migrating one by default) gets for `names`. */
  async function sessionSettings(url: string, names: readonly string[], role?: string): Promise<string[]> {
    const target = new URL(url);
    if (role) target.username = role;
    const client = new pg.Client({ connectionString: target.toString() });
    await client.connect();
    try {
      const values: string[] = [];
      for (const name of names) values.push((await client.query(`SHOW ${name}`)).rows[0][name]);
      return values;
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    await runStatement(LOCAL_POSTGRES_URL, `CREATE ROLE ${otherRole} LOGIN`);
    dirBefore = await mkdtemp(join(tmpdir(), "before-own-role-"));
    const files = await migrationFiles(DEFAULT_MIGRATIONS_DIR);
    for (const name of files) {
      if (name < OWN_ROLE_FILE) await copyFile(join(DEFAULT_MIGRATIONS_DIR, name), join(dirBefore, name));
    }
    // What a release from before the timeouts applies: the two timeout files first, then any later.
    filesFromOwnRole = files.filter((name) => name >= OWN_ROLE_FILE);
    expect(filesFromOwnRole.slice(0, 2)).toEqual([OWN_ROLE_FILE, EVERY_ROLE_FILE]);
  });
  afterAll(async () => {
    await Promise.all(backends.map((backend) => backend.close()));
    await Promise.all(databases.map((created) => created.drop()));
    await runStatement(LOCAL_POSTGRES_URL, `DROP ROLE IF EXISTS ${otherRole}`);
    if (dirBefore) await rm(dirBefore, { recursive: true, force: true });
  });

  it("beside other tables, the project's timeouts bind its own role's sessions only; those it set database-wide are reset", async () => {
    const { url, backend } = await database();
    // As the releases before left it: the timeouts set for the whole database, and a setting of
    // the database's owner of its own.
    await migrate(backend, dirBefore);
    await backend.exec(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET work_mem = '8MB'`);
    expect(await sessionSettings(url, TIMEOUTS, otherRole)).toEqual(["5s", "4s", "5s"]);

    expect(await migrate(backend, DEFAULT_MIGRATIONS_DIR, { besideOtherTables: true })).toEqual(filesFromOwnRole);
    expect(await sessionSettings(url, TIMEOUTS)).toEqual(["5s", "4s", "5s"]);
    expect(await sessionSettings(url, [...TIMEOUTS, "work_mem"], otherRole)).toEqual(["0", "0", "0", "8MB"]);
  });

  it("a fresh database beside other tables ends the same: no timeout for anyone else", async () => {
    const { url, backend } = await database();
    await migrate(backend, DEFAULT_MIGRATIONS_DIR, { besideOtherTables: true });
    expect(await sessionSettings(url, TIMEOUTS)).toEqual(["5s", "4s", "5s"]);
    expect(await sessionSettings(url, TIMEOUTS, otherRole)).toEqual(["0", "0", "0"]);
  });

  it("a database of its own gives every role the timeouts, keeping a value its owner set for it", async () => {
    const { url, backend } = await database();
    await migrate(backend, dirBefore);
    await backend.exec(
      `ALTER DATABASE ${new URL(url).pathname.slice(1)} SET lock_timeout = '2s'; ` +
        `ALTER DATABASE ${new URL(url).pathname.slice(1)} RESET statement_timeout`,
    );
    expect(await migrate(backend)).toEqual(filesFromOwnRole);
    expect(await sessionSettings(url, TIMEOUTS, otherRole)).toEqual(["5s", "2s", "5s"]);
  });

  it("refuses a schema that holds tables the project did not make, with one line, changing nothing", async () => {
    const { backend } = await database();
    await backend.exec("CREATE TABLE customers (id int); CREATE VIEW big_customers AS SELECT * FROM customers");
    const refused = await migrate(backend).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OtherTablesError);
    const message = (refused as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toMatch(/schema public of database t_\w+ already holds 2 tables .*\(big_customers, customers\)/);
    expect(message).toContain(`${BESIDE_OTHER_TABLES_SETTING}=true`);
    const left = await backend.query({
      query: "SELECT to_regclass('schema_migrations') IS NULL AND to_regclass('documents') IS NULL",
      params: [],
    });
    expect(left.rows).toEqual([["t"]]);
  });

  it("migrates beside them when asked explicitly, by option or by the setting", async () => {
    const asked = await database();
    await asked.backend.exec("CREATE TABLE customers (id int)");
    expect(await migrate(asked.backend, DEFAULT_MIGRATIONS_DIR, { besideOtherTables: true })).toEqual(
      await migrationFiles(DEFAULT_MIGRATIONS_DIR),
    );
    // Once the project's, the schema is migrated as any other: its own tables are no longer others'.
    expect(await migrate(asked.backend)).toEqual([]);

    const set = await database();
    await set.backend.exec("CREATE TABLE customers (id int)");
    process.env[BESIDE_OTHER_TABLES_SETTING] = "true";
    try {
      expect((await migrate(set.backend)).length).toBeGreaterThan(0);
    } finally {
      delete process.env[BESIDE_OTHER_TABLES_SETTING];
    }
  });
});
