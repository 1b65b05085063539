// The pg backend on its own: what the endpoint tests cannot see (pool bounds, connection reuse).
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../support/postgres.ts";
import { PostgresError, type SqlBackend } from "./backend.ts";
import { createPgBackend } from "./pg-backend.ts";

const q = (query: string, params: (string | null)[] = []) => ({ query, params });

describeWithPostgres("pg backend", () => {
  let db: TestDatabase;
  let backend: SqlBackend; // one connection: a client that leaked state would be the next one used
  beforeAll(async () => {
    db = await createTestDatabase();
    backend = createPgBackend(db.url, { max: 1 });
    await backend.exec("CREATE TABLE items (id int PRIMARY KEY, tags int[])");
  });
  afterAll(async () => {
    await backend?.close();
    await db?.drop();
  });

  it("answers raw Postgres text and full field descriptions", async () => {
    await backend.query(q("INSERT INTO items VALUES ($1, $2)", ["1", "{1,2}"]));
    const result = await backend.query(q("SELECT id, tags, '{\"a\":1}'::jsonb AS doc, true AS yes FROM items"));
    expect(result.rows).toEqual([["1", "{1,2}", '{"a": 1}', "t"]]);
    expect(result.fields[1]).toMatchObject({
      name: "tags",
      dataTypeID: 1007,
      columnID: 2,
      dataTypeSize: -1,
      format: "text",
    });
    expect(result.fields[1]?.tableID).toBeGreaterThan(0);
    expect(result).toMatchObject({ command: "SELECT", rowCount: 1 });
  });

  it("refuses multi-statement text even without parameters", async () => {
    const error = await backend.query(q("SELECT 1; DELETE FROM items")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresError);
    expect((error as PostgresError).fields.code).toBe("42601");
  });

  it("does not reuse a connection the server terminated", async () => {
    const error = await backend.query(q("SELECT pg_terminate_backend(pg_backend_pid())")).catch((e: unknown) => e);
    expect((error as PostgresError).fields).toMatchObject({ code: "57P01", severity: "FATAL" });
    expect((await backend.query(q("SELECT 1"))).rows).toEqual([["1"]]);
  });

  it("rolls back a failed batch and a failed script, leaving the connection clean", async () => {
    const batch = backend.batch([q("INSERT INTO items VALUES (2, NULL)"), q("SELECT 1/0")], {});
    await expect(batch).rejects.toMatchObject({ fields: { code: "22012" } });
    const script = backend.exec("BEGIN; INSERT INTO items VALUES (3, NULL); SELECT 1/0; COMMIT;");
    await expect(script).rejects.toBeInstanceOf(PostgresError);
    // A leaked aborted transaction would fail this with 25P02; a leaked open one would count item 3.
    const left = await backend.query(q("SELECT count(*) FROM items"));
    expect(left.rows).toEqual([["1"]]);
  });

  it("bounds the pool", async () => {
    const two = createPgBackend(db.url, { max: 2 });
    try {
      const started = Date.now();
      await Promise.all(Array.from({ length: 6 }, () => two.query(q("SELECT pg_sleep(0.2)"))));
      expect(Date.now() - started).toBeGreaterThanOrEqual(550); // 3 rounds of 2, not 1 round of 6
    } finally {
      await two.close();
    }
  });

  it("reports a connection failure as a plain Error, not a PostgresError", async () => {
    const missing = createPgBackend(db.url.replace(/\/[^/]*$/, "/no_such_database"));
    try {
      const error = await missing.query(q("SELECT 1")).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(PostgresError);
      expect((error as Error).message).toMatch(/could not connect.*no_such_database/);
    } finally {
      await missing.close();
    }
  });
});
