// The local stack seen through the REAL Neon driver, on PGlite and on PostgreSQL, held to what
// Neon's proxy does: a connection is reset before the next request, COPY is refused, answers over
// 10 MiB are refused (507), the connection string's password, role and database are checked,
// requests run without superuser rights, and only this machine's names and allowed origins get
// in. What only PostgreSQL can show is in neon-fidelity-postgres.test.ts.

import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { neonFailure } from "../support/neon-driver.ts";
import { type Driver, dispose, driverFor, type Opened, one, open } from "./stack-driver.ts";

function fidelitySuite(backend: "pglite" | "postgres") {
  return () => {
    let opened: Opened;
    let sql: Driver;
    beforeAll(async () => {
      opened = await open(backend, { allowedOrigins: ["http://localhost:5173"] });
      sql = driverFor(opened.stack);
    });
    afterAll(() => dispose(opened));

    // [what one request leaves behind, a probe of it, the value the probe must see afterwards]
    const leaks: Array<[string, string, string, unknown]> = [
      ["search_path", "SET search_path TO pg_catalog", "SELECT current_setting('search_path') <> 'pg_catalog'", true],
      [
        "set_config",
        "SELECT set_config('search_path', 'pg_catalog', false)",
        "SELECT current_setting('search_path') <> 'pg_catalog'",
        true,
      ],
      [
        "statement_timeout",
        "SET statement_timeout = '1ms'",
        "SELECT current_setting('statement_timeout') <> '1ms'",
        true,
      ],
      ["read-only default", "SET default_transaction_read_only = on", "SHOW default_transaction_read_only", "off"],
      ["temporary table", "CREATE TEMP TABLE leak_t (x int)", "SELECT to_regclass('pg_temp.leak_t') IS NULL", true],
      ["prepared statement", "PREPARE leak_p AS SELECT 1", "SELECT count(*)::int FROM pg_prepared_statements", 0],
      [
        "advisory lock",
        "SELECT pg_advisory_lock(4242)",
        "SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242", // this one: other suites take their own
        0,
      ],
      ["LISTEN", "LISTEN leak_channel", "SELECT count(*)::int FROM pg_listening_channels()", 0],
      ["role", "SET ROLE postgres", "SELECT current_user::text", "edge_app"],
    ];

    it.each(leaks)("resets %s before the next request, as Neon does", async (_, change, probe, expected) => {
      await sql.query(change).catch(() => {}); // SET ROLE is refused outright on PostgreSQL: fine too
      expect(await one(sql, probe)).toEqual(expected);
      expect(await one(sql, probe)).toEqual(expected);
    });

    it("runs statements with the app's rights, not a superuser's", async () => {
      expect(await one(sql, "SELECT current_user::text")).toBe("edge_app");
      expect(await one(sql, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).toBe(false);
      for (const statement of [
        "SELECT pg_read_file('/etc/hostname')",
        "CREATE ROLE intruder SUPERUSER",
        "DROP TABLE documents",
        "ALTER SYSTEM SET work_mem = '1GB'",
      ]) {
        const error = await neonFailure(sql.query(statement));
        expect(error.code, statement).toBe("42501");
      }
      // …while the app's own work is allowed.
      expect(await one(sql, "SELECT count(*)::int FROM documents")).toBe(0);
    });

    it("refuses any change of role, alone or in a batch, and the batch runs none of its statements", async () => {
      const changes = [
        'SET SESSION AUTHORIZATION "postgres"',
        "set /* x */ session\n authorization DEFAULT",
        "SET ROLE postgres",
        "RESET ROLE",
        "DISCARD ALL",
        "SELECT set_config('session_authorization', 'postgres', false)",
        "DO $$ BEGIN EXECUTE 'SET SESSION AUTHORI' || 'ZATION postgres'; END $$",
      ];
      for (const change of changes) {
        const alone = await neonFailure(sql.query(change));
        expect(alone, change).toMatchObject({ code: "42501", severity: "ERROR" });
        const batch = await neonFailure(
          sql.transaction([
            sql.query("INSERT INTO document_sequences (tenant_id, last_number) VALUES ('swap-batch', 1)"),
            sql.query(change),
            sql.query("SELECT pg_read_file('/etc/hostname')"),
          ]),
        );
        expect(batch, change).toMatchObject({ code: "42501" });
        expect(await one(sql, "SELECT session_user::text || ' ' || current_user::text")).toBe("edge_app edge_app");
      }
      expect(await one(sql, "SELECT count(*)::int FROM document_sequences WHERE tenant_id = 'swap-batch'")).toBe(0);
    });

    it.each([
      "COPY documents FROM STDIN",
      "COPY (SELECT 1) TO STDOUT",
      "  /* leading comment */ copy documents TO STDOUT",
      "-- a line comment\nCOPY document_sequences FROM STDIN WITH (FORMAT csv)",
    ])("refuses %j with 400 and keeps serving", async (statement) => {
      const error = await neonFailure(sql.query(statement));
      expect(error).toMatchObject({ code: "0A000", message: "COPY is not supported over HTTP" });
      expect(await one(sql, "SELECT 1")).toBe(1);
    });

    it("refuses an answer over 10 MiB with 507, as Neon does, and keeps serving", async () => {
      const error = await neonFailure(sql.query("SELECT repeat('x', 11 * 1024 * 1024)"));
      expect(error.message).toMatch(/^Server error \(HTTP status 507\): .*response is too large/);
      expect(await one(sql, "SELECT length(repeat('x', 9 * 1024 * 1024))")).toBe(9 * 1024 * 1024);
    });

    it("refuses a connection string without this start's password, or naming another role or database", async () => {
      const url = new URL(opened.stack.databaseUrl);
      const variant = (change: (u: URL) => void) => {
        const copy = new URL(url);
        change(copy);
        return copy.toString();
      };
      const user = decodeURIComponent(url.username);
      const failed = (name: string) => ({ message: `password authentication failed for user '${name}'`, code: "" });
      const refusals: Array<[string, { message?: string; code: string }]> = [
        [
          variant((u) => {
            u.password = "";
          }),
          { message: "missing authentication credentials: required password", code: "" },
        ],
        [
          variant((u) => {
            u.password = "wrong";
          }),
          failed(user),
        ],
        [
          variant((u) => {
            u.username = "postgres";
          }),
          failed("postgres"),
        ],
        [
          variant((u) => {
            u.pathname = "/other";
          }),
          { code: "3D000" },
        ],
      ];
      for (const [connectionString, expected] of refusals) {
        const error = await neonFailure(driverFor(opened.stack, connectionString).query("SELECT 1"));
        // A NeonDbError carrying the body's fields: the answer was Neon's 400 with a JSON body.
        expect(error).toMatchObject(expected);
        if (expected.code === "") expect({ severity: error.severity, detail: error.detail }).toEqual({ severity: "" });
        expect(JSON.stringify(error)).not.toContain(url.password);
      }
      expect(await one(sql, "SELECT 1")).toBe(1);
    });

    it("answers only this machine's host names (no DNS rebinding) and never a wildcard origin", async () => {
      const { port } = opened.stack.endpoint;
      const raw = (headers: Record<string, string>, method = "POST") =>
        new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
          const req = httpRequest({ host: "127.0.0.1", port, path: "/sql", method, headers }, (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
          });
          req.on("error", reject);
          req.end(method === "POST" ? '{"query":"SELECT 1"}' : undefined);
        });
      const neonHeaders = { "Neon-Connection-String": opened.stack.databaseUrl };
      expect((await raw({ ...neonHeaders, Host: "evil.example" })).status).toBe(403);
      expect((await raw({ ...neonHeaders, Host: `localhost:${port}` })).status).toBe(200);
      const foreign = await raw({ ...neonHeaders, Origin: "https://evil.example" });
      expect(foreign.status).toBe(403);
      expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();
      const preflight = await raw(
        { Origin: "http://localhost:5173", "Access-Control-Request-Method": "POST" },
        "OPTIONS",
      );
      expect(preflight.status).toBe(204);
      expect(preflight.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
      expect(String(preflight.headers["access-control-allow-headers"])).toContain("Neon-Connection-String");
      const allowed = await raw({ ...neonHeaders, Origin: "http://localhost:5173" });
      expect(allowed).toMatchObject({
        status: 200,
        headers: { "access-control-allow-origin": "http://localhost:5173" },
      });
      expect((await raw({ Origin: "https://evil.example" }, "OPTIONS")).status).toBe(403);
    });

    it("reports a Postgres error with its fields, as the driver gets them from Neon", async () => {
      await sql.query("INSERT INTO document_sequences (tenant_id, last_number) VALUES ('fields', 1)");
      const error = await neonFailure(
        sql.query("INSERT INTO document_sequences (tenant_id, last_number) VALUES ('fields', 2)"),
      );
      expect(error).toMatchObject({
        code: "23505",
        severity: "ERROR",
        constraint: "document_sequences_pkey",
        table: "document_sequences",
        schema: "public",
        detail: "Key (tenant_id)=(fields) already exists.",
        routine: "_bt_check_unique",
      });
      const syntax = await neonFailure(sql.query("SELEC 1"));
      expect(syntax).toMatchObject({ code: "42601", position: "1", severity: "ERROR" });
    });
  };
}

describe("Neon fidelity over PGlite", fidelitySuite("pglite"));
describeWithPostgres("Neon fidelity over PostgreSQL", fidelitySuite("postgres"));
