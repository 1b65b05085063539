// `npm start` against a PostgreSQL migrates as `npm run migrate` and the release migrator do: no
// statement timeout of the owner's (sql/0016 gives the owner 5 s in its database) ends an index
// built CONCURRENTLY on a table that takes longer to index.
import pg from "pg";
import { expect, it } from "vitest";
import { startLocalStack } from "../../dev/local-stack/stack.ts";
import { createTestDatabase, describeWithPostgres } from "../../dev/support/postgres.ts";
import { runStatement } from "../../dev/support/run-statement.ts";
import { migrate } from "../../edge/migrate/migrate.ts";
import { postgresMigrationSession } from "../../edge/migrate/postgres.ts";

const INDEX = "documents_idempotency_expiry_key";
const FILE = "0012_idempotency_expiry_index.sql";

describeWithPostgres("npm start's migrations on PostgreSQL [postgres]", () => {
  it("build an index for longer than the owner's statement timeout", async () => {
    const database = await createTestDatabase();
    try {
      const session = postgresMigrationSession(database.url);
      try {
        await migrate(session);
      } finally {
        await session.close();
      }
      // 0012 is pending again, over enough rows that building its index takes well over 20 ms.
      await runStatement(
        database.url,
        `SET statement_timeout = 0;
         SET session_replication_role = replica;
         INSERT INTO documents (tenant_id, doc_number, contract_id, idempotency_key, request_fingerprint)
           SELECT 't' || n, 1, 'c', 'k' || n, 'f' FROM generate_series(1, 200000) AS n;
         DROP INDEX ${INDEX};
         DELETE FROM schema_migrations WHERE name = '${FILE}';
         ALTER ROLE current_user IN DATABASE ${database.name} SET statement_timeout = '20ms'`,
      );
      const stack = await startLocalStack({ databaseUrl: database.url });
      await stack.close();
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const built = await client
        .query(`SELECT indisvalid FROM pg_index WHERE indexrelid = '${INDEX}'::regclass`)
        .finally(() => client.end());
      expect(built.rows).toEqual([{ indisvalid: true }]);
    } finally {
      await database.drop();
    }
  }, 60_000);
});
