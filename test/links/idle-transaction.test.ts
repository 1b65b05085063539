// sql/0010: a transaction left open and idle ends by itself, so it cannot hold the change feed's
// horizon (and every deployment's invalidation) for longer than the timeout.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPgBackend } from "../../dev/local-stack/neon-endpoint/pg-backend.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { migrate } from "../../edge/migrate/migrate.ts";

describeWithPostgres("a transaction left idle [postgres]", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    const backend = createPgBackend(database.url, { max: 1 });
    try {
      await migrate(backend);
    } finally {
      await backend.close();
    }
  }, 60_000);
  afterAll(() => database?.drop());

  const connect = async () => {
    const client = new pg.Client({ connectionString: database.url });
    client.on("error", () => {}); // the server ends the idle session: expected here
    await client.connect();
    return client;
  };

  it("is rolled back after 5 s, which frees the feed's horizon", async () => {
    const idle = await connect();
    const observer = await connect();
    try {
      await idle.query("BEGIN");
      const [{ xid }] = (await idle.query("SELECT pg_current_xact_id()::text AS xid")).rows;
      const status = async () =>
        (await observer.query("SELECT pg_xact_status($1::xid8) AS status", [xid])).rows[0].status as string;
      const startedAt = Date.now();
      expect(await status()).toBe("in progress");
      while ((await status()) === "in progress" && Date.now() - startedAt < 15_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const endedAfterMs = Date.now() - startedAt;
      expect(await status()).toBe("aborted");
      expect(endedAfterMs).toBeGreaterThanOrEqual(4_500);
      expect(endedAfterMs).toBeLessThan(10_000);
      await expect(idle.query("SELECT 1")).rejects.toThrow();
    } finally {
      await Promise.all([idle.end().catch(() => {}), observer.end()]);
    }
  }, 30_000);

  it("is not a setting a busy session hits: statements in a row, each quick, commit", async () => {
    const client = await connect();
    try {
      expect((await client.query("SHOW idle_in_transaction_session_timeout")).rows[0]).toEqual({
        idle_in_transaction_session_timeout: "5s",
      });
      await client.query("BEGIN");
      for (let step = 0; step < 3; step++) {
        await client.query("SELECT pg_sleep(2)");
      }
      await client.query("COMMIT");
    } finally {
      await client.end();
    }
  }, 30_000);
});
