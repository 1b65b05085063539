// The local endpoint seen through the REAL Neon driver, once over PGlite and once over PostgreSQL:
// whatever the driver gets here is what it would get from Neon.

import { type NeonQueryFunction, neon } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { neonFailure, routeNeonDriver } from "../../../test/support/neon-driver.ts";
import { createTestDatabase, describeWithPostgres } from "../../support/postgres.ts";
import type { SqlBackend } from "./backend.ts";
import { type NeonEndpoint, startNeonEndpoint } from "./endpoint.ts";
import { createPgBackend } from "./pg-backend.ts";
import { createPgliteBackend } from "./pglite-backend.ts";

interface Opened {
  backend: SqlBackend;
  dispose(): Promise<void>;
}
type Open = () => Promise<Opened>;

const openPglite: Open = async () => {
  const backend = await createPgliteBackend();
  return { backend, dispose: () => backend.close() };
};

// Each call gets its own database; dispose drops it.
const openPostgres: Open = async () => {
  const db = await createTestDatabase();
  const backend = createPgBackend(db.url, { max: 4 });
  return {
    backend,
    dispose: async () => {
      await backend.close();
      await db.drop();
    },
  };
};

/** Answers every statement with its first parameter as column x: for endpoint-only checks. */
const echoBackend: SqlBackend = {
  kind: "pglite",
  query: async ({ params }) => ({
    fields: [
      { name: "x", dataTypeID: 25, tableID: 0, columnID: 0, dataTypeSize: -1, dataTypeModifier: -1, format: "text" },
    ],
    rows: [[params[0] ?? null]],
    command: "SELECT",
    rowCount: 1,
  }),
  batch: async () => [],
  exec: async () => {},
  close: async () => {},
};

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    body,
    headers: { "Neon-Connection-String": "postgres://u:pw@h.example/db", ...headers },
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

function endpointSuite(host: string, open: Open) {
  return () => {
    let opened: Opened;
    let endpoint: NeonEndpoint;
    let sql: NeonQueryFunction<false, false>;

    beforeAll(async () => {
      opened = await open();
      endpoint = await startNeonEndpoint({ backend: opened.backend });
      sql = neon(routeNeonDriver(`postgres://user:secret@${host}/whatever`, endpoint.url));
      await sql`CREATE TABLE people (id int PRIMARY KEY, email text CONSTRAINT people_email_key UNIQUE)`;
      await sql`CREATE TABLE notes (body text NOT NULL)`;
    });
    afterAll(async () => {
      await endpoint?.close();
      await opened?.dispose();
    });

    it("returns values as the driver would parse them from Neon", async () => {
      const [row] = await sql.query(
        "SELECT $1::int8 AS big, $2::timestamptz AS at, $3::bool AS yes, $4::json AS doc, " +
          "$5::text[] AS words, $6::int[] AS ints, NULL::text AS nothing, 1.5::numeric AS num",
        ["9007199254740993", "2024-01-02T03:04:05.678Z", true, { a: [1, "x"] }, ["x", 'y "z"'], [1, 2]],
      );
      expect(row).toEqual({
        big: "9007199254740993", // int8 stays a string, as on Neon
        at: new Date("2024-01-02T03:04:05.678Z"),
        yes: true,
        doc: { a: [1, "x"] },
        words: ["x", 'y "z"'],
        ints: [1, 2],
        nothing: null,
        num: "1.5",
      });
    });

    it("describes fields with their table, column and type", async () => {
      await sql`INSERT INTO people VALUES (1, 'one@example.com')`;
      const result = await sql.query("SELECT id, email FROM people WHERE id = $1", [1], { fullResults: true });
      expect(result.fields.map((f) => [f.name, f.dataTypeID, f.columnID])).toEqual([
        ["id", 23, 1],
        ["email", 25, 2],
      ]);
      expect(result.fields[0]?.tableID).toBeGreaterThan(0);
      expect(result).toMatchObject({ command: "SELECT", rowCount: 1, rows: [{ id: 1, email: "one@example.com" }] });
      const insert = await sql.query("INSERT INTO notes VALUES ('a'), ('b')", [], { fullResults: true });
      expect(insert).toMatchObject({ command: "INSERT", rowCount: 2, fields: [] });
      await sql`DELETE FROM notes`;
    });

    it("reports a unique violation as NeonDbError 23505 with the constraint name", async () => {
      await sql`INSERT INTO people VALUES (2, 'dup@example.com')`;
      const error = await neonFailure(sql`INSERT INTO people VALUES (3, 'dup@example.com')`);
      expect(error).toMatchObject({
        code: "23505",
        constraint: "people_email_key",
        table: "people",
        severity: "ERROR",
      });
      expect(error.detail).toContain("dup@example.com");
    });

    it("refuses multi-statement text with 42601, as Neon does", async () => {
      const error = await neonFailure(sql.query("SELECT 1; DELETE FROM people"));
      expect(error.code).toBe("42601");
      expect(await sql`SELECT count(*)::int AS n FROM people`).not.toEqual([{ n: 0 }]);
    });

    it("runs a transaction all or nothing", async () => {
      const error = await neonFailure(
        sql.transaction([
          sql`INSERT INTO people VALUES (10, 'ten@example.com')`,
          sql`INSERT INTO people VALUES (11, 'dup@example.com')`,
          sql`INSERT INTO people VALUES (12, 'twelve@example.com')`,
        ]),
      );
      expect(error).toMatchObject({ code: "23505", constraint: "people_email_key" });
      expect(await sql`SELECT id FROM people WHERE id >= 10`).toEqual([]);
      const [, rows] = await sql.transaction([sql`INSERT INTO notes VALUES ('t')`, sql`SELECT body FROM notes`]);
      expect(rows).toEqual([{ body: "t" }]);
      await sql`DELETE FROM notes`;
    });

    it("honours the batch isolation level and read-only options", async () => {
      const level = sql`SELECT current_setting('transaction_isolation') AS level`;
      const serializable = await sql.transaction([level], { isolationLevel: "Serializable" });
      expect(serializable).toEqual([[{ level: "serializable" }]]);
      const fallback = await sql.transaction([sql`SELECT current_setting('transaction_isolation') AS level`]);
      expect(fallback).toEqual([[{ level: "read committed" }]]);
      const error = await neonFailure(sql.transaction([sql`INSERT INTO notes VALUES ('ro')`], { readOnly: true }));
      expect(error.code).toBe("25006"); // read_only_sql_transaction
    });

    it("counts every statement it serves", async () => {
      endpoint.resetStatements();
      await sql`SELECT 1`;
      await sql.transaction([sql`SELECT 1`, sql`SELECT 2`, sql`SELECT 3`]);
      expect(endpoint.statements()).toBe(4);
      endpoint.resetStatements();
      expect(endpoint.statements()).toBe(0);
    });

    it("never lets a bare BEGIN leak into the next request", async () => {
      await sql.query("BEGIN");
      await sql`INSERT INTO notes VALUES ('kept')`;
      await sql.query("ROLLBACK"); // would undo the insert had the BEGIN stayed open
      expect(await sql`SELECT body FROM notes`).toEqual([{ body: "kept" }]);
      await sql`DELETE FROM notes`;
    });

    it("answers concurrent requests correctly", async () => {
      const work = Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? sql.query("SELECT $1::int AS i", [i]).then((rows) => rows[0]?.i)
          : sql.transaction([sql`SELECT ${i}::int AS i`, sql`SELECT 1`]).then(([rows]) => rows?.[0]?.i),
      );
      expect(await Promise.all(work)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it("answers a malformed body with a 400 the driver throws on", async () => {
      const error = await neonFailure(sql.query("SELECT 1", [], { fetchOptions: { body: "{not json" } }));
      expect(error.message).toMatch(/could not parse the HTTP request body/);
      expect((await post(endpoint.url, '{"nope": 1}')).status).toBe(400);
      expect((await post(endpoint.url, '{"query": "SELECT 1", "params": "x"}')).status).toBe(400);
    });

    it("checks the connection string and the route, never echoing the string", async () => {
      const bad = await post(endpoint.url, '{"query":"SELECT 1"}', { "Neon-Connection-String": "mysql://u:pw@h/db" });
      expect(bad).toMatchObject({ status: 400, json: { message: "incorrect scheme", code: null } });
      const noDb = await post(endpoint.url, '{"query":"SELECT 1"}', { "Neon-Connection-String": "postgres://u:pw@h" });
      expect(noDb.status).toBe(400);
      expect(JSON.stringify(noDb.json)).not.toContain("pw");
      expect((await post(endpoint.url.replace("/sql", "/other"), "{}")).status).toBe(404);
      expect((await fetch(endpoint.url)).status).toBe(405);
    });

    it("answers objects and JSON-typed values when the driver's headers are absent", async () => {
      const body = JSON.stringify({
        query: "SELECT 1 AS n, true AS b, '{1,2}'::int[] AS a, 7::int8 AS big, $1 AS p",
        params: [5],
      });
      const typed = await post(endpoint.url, body);
      expect(typed.json).toMatchObject({ rows: [{ n: 1, b: true, a: [1, 2], big: "7", p: "5" }], rowAsArray: false });
      const raw = await post(endpoint.url, body, { "Neon-Raw-Text-Output": "true", "Neon-Array-Mode": "true" });
      expect(raw.json).toMatchObject({ rows: [["1", "t", "{1,2}", "7", "5"]], rowAsArray: true });
    });

    // Last: it closes the suite's backend (dispose closes it again, harmlessly).
    // 503: nothing was started, so nothing was written.
    it("answers 503, not a hang, once the backend is closed", async () => {
      await opened.backend.close();
      const error = await neonFailure(sql`SELECT 1`);
      expect(error.message).toMatch(/HTTP status 503.*closed/);
      expect(error.code).toBeUndefined();
    });
  };
}

describe("Neon endpoint over PGlite", endpointSuite("pglite.test", openPglite));
describeWithPostgres("Neon endpoint over PostgreSQL", endpointSuite("postgres.test", openPostgres));

describe("Neon endpoint limits", () => {
  it("answers 503 quickly when PostgreSQL is unreachable", async () => {
    const backend = createPgBackend("postgres://postgres@127.0.0.1:1/nowhere", { connectionTimeoutMillis: 2_000 });
    const endpoint = await startNeonEndpoint({ backend });
    const sql = neon(routeNeonDriver("postgres://u:pw@unreachable.test/db", endpoint.url));
    try {
      const error = await neonFailure(sql`SELECT 1`);
      expect(error.message).toMatch(/HTTP status 503.*could not connect/);
    } finally {
      await endpoint.close();
      await backend.close();
    }
  });

  it("refuses a body over the limit with 413", async () => {
    const endpoint = await startNeonEndpoint({ backend: echoBackend, maxBodyBytes: 1_000 });
    try {
      const big = await post(endpoint.url, JSON.stringify({ query: "SELECT $1", params: ["x".repeat(5_000)] }));
      expect(big).toMatchObject({ status: 413, json: { message: "request is too large (max is 1000 bytes)" } });
      const small = await post(endpoint.url, JSON.stringify({ query: "SELECT $1", params: ["ok"] }));
      expect(small).toMatchObject({ status: 200, json: { rows: [{ x: "ok" }] } });
    } finally {
      await endpoint.close();
    }
  });
});
