// Timeouts the database's owner set for the whole database before the project's first migration
// are theirs, and stay (docs/security.md): in a database of the project's own, and beside another
// application's tables alike. The project's sessions get theirs per role (sql/0016, 0017).
import pg from "pg";
import { expect, it } from "vitest";
import { createPgBackend } from "../../dev/local-stack/neon-endpoint/pg-backend.ts";
import { createTestDatabase, describeWithPostgres } from "../../dev/support/postgres.ts";
import { migrate } from "../../edge/migrate/migrate.ts";

const OWNERS = ["statement_timeout=30s", "lock_timeout=20s", "idle_in_transaction_session_timeout=1min"];

describeWithPostgres("timeouts the owner set before the first migration [postgres]", () => {
  it.each([
    ["in a database of its own", false],
    ["beside another application's tables", true],
  ])("are kept %s", async (_label, beside) => {
    const database = await createTestDatabase();
    const backend = createPgBackend(database.url, { max: 1 });
    try {
      if (beside) await backend.exec("CREATE TABLE customers (id int)");
      for (const setting of OWNERS) {
        const [name, value] = setting.split("=");
        await backend.exec(`ALTER DATABASE ${database.name} SET ${name} = '${value}'`);
      }
      await migrate(backend, undefined, { besideOtherTables: beside });
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const found = await client.query<{ setconfig: string[] | null }>(
        `SELECT setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
         WHERE d.datname = current_database() AND setrole = 0`,
      );
      await client.end();
      expect([...(found.rows[0]?.setconfig ?? [])].sort()).toEqual([...OWNERS].sort());
    } finally {
      await backend.close();
      await database.drop();
    }
  });
});
