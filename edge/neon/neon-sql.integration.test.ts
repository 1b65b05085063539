import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { NeonDbError } from "@neondatabase/serverless";
import { describe, expect, it, vi } from "vitest";
import { DatabaseError, DatabaseOutcomeUnknownError, DatabaseUnavailableError } from "../../core/ports/sql.ts";
import { parseSettings, SettingsError } from "../../core/settings/settings.ts";
import { refusedPort } from "../../dev/support/free-port.ts";
import { sqlContract } from "../../test/ports/sql-contract.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { createNeonSql, neonSqlFromSettings } from "./neon-sql.ts";
import { toPortError } from "./port-errors.ts";

describeOnBackends("SQL port over the Neon driver", (harness) => {
  for (const [name, run] of sqlContract) it(`contract: ${name}`, () => run(harness().sql));

  it("costs one endpoint round trip per statement", async () => {
    const { sql, stack } = harness();
    stack.endpoint.resetStatements();
    await sql.query("SELECT 1");
    expect(stack.endpoint.statements()).toBe(1);
  });

  it("names DATABASE_URL, never outcome unknown, when the endpoint refuses its login", async () => {
    const { stack } = harness();
    const url = new URL(stack.databaseUrl);
    const logins = [
      Object.assign(new URL(url), { password: "wrong" }),
      Object.assign(new URL(url), { username: "nobody" }),
      Object.assign(new URL(url), { password: "" }),
    ];
    for (const login of logins) {
      const sql = createNeonSql({ databaseUrl: login.toString(), fetchEndpoint: stack.neonFetchEndpoint });
      const error = await sql.query("INSERT INTO documents DEFAULT VALUES").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SettingsError);
      expect(error).toMatchObject({ setting: "DATABASE_URL" });
      expect(String((error as Error).message)).not.toContain(url.password);
      expect(String((error as Error).message)).not.toContain("nobody");
    }
  });
});

describe("the port's settings", () => {
  const settings = (env: Record<string, string>) => parseSettings({ AUTH_SECRET: "x".repeat(32), ...env });

  it("refuses a connection string Neon would refuse, naming the setting and not its value", () => {
    const make = () => createNeonSql({ databaseUrl: "postgres://secret-host.example/" });
    expect(make).toThrow(SettingsError);
    expect(make).toThrow(/^DATABASE_URL must be/);
    expect(make).not.toThrow(/secret-host/);
  });

  it("needs NEON_FETCH_ENDPOINT for a database that is not Neon's, naming both settings", () => {
    const plain = settings({ DATABASE_URL: "postgres://app:pw@127.0.0.1:5432/app" });
    expect(() => neonSqlFromSettings(plain)).toThrow(SettingsError);
    expect(() => neonSqlFromSettings(plain)).toThrow(/^NEON_FETCH_ENDPOINT is not set.*DATABASE_URL/);
    expect(() => neonSqlFromSettings(plain)).not.toThrow(/127\.0\.0\.1|pw/);
    const neonHost = settings({ DATABASE_URL: "postgres://app:pw@ep-cool-1.us-east-2.aws.neon.tech/app" });
    expect(neonSqlFromSettings(neonHost)).toHaveProperty("query");
    const routed = settings({
      DATABASE_URL: "postgres://app:pw@db.internal:5432/app",
      NEON_FETCH_ENDPOINT: "http://127.0.0.1:4444/sql",
    });
    expect(neonSqlFromSettings(routed)).toHaveProperty("query");
  });
});

const neonError = (message: string, fields: Partial<NeonDbError> = {}) =>
  Object.assign(new NeonDbError(message), fields);

describe("toPortError", () => {
  it("keeps SQLSTATE and constraint from Postgres' refusal", () => {
    const refusal = toPortError(neonError("duplicate", { code: "23505", constraint: "k", table: "t" }));
    expect(refusal).toBeInstanceOf(DatabaseError);
    expect(refusal).toMatchObject({ code: "23505", constraint: "k", table: "t" });
  });

  it("answers unavailable (nothing written) for refusals that rolled the statement back", () => {
    for (const code of ["57014", "55P03", "40001", "40P01", "25006", "57P03", "53300", "08006"]) {
      expect(toPortError(neonError("refused", { code })), code).toBeInstanceOf(DatabaseUnavailableError);
    }
    const notStarted = neonError("Server error (HTTP status 503): not started");
    expect(toPortError(notStarted)).toBeInstanceOf(DatabaseUnavailableError);
  });

  it("answers outcome unknown when the request may have reached the database unanswered", () => {
    const reset = neonError("Error connecting to database: fetch failed", {
      sourceError: new TypeError("fetch failed", {
        cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
      }),
    });
    expect(toPortError(reset)).toBeInstanceOf(DatabaseOutcomeUnknownError);
    expect(toPortError(neonError("Server error (HTTP status 502): bad gateway"))).toBeInstanceOf(
      DatabaseOutcomeUnknownError,
    );
    expect(toPortError(new SyntaxError("Unexpected token <"))).toBeInstanceOf(DatabaseOutcomeUnknownError);
    // SQLSTATEs that say so themselves (transaction_resolution_unknown, statement_completion_unknown),
    // and a session ended under its statement, maybe after its commit (admin_shutdown, crash_shutdown).
    for (const code of ["08007", "40003", "57P01", "57P02"]) {
      expect(toPortError(neonError("unknown", { code })), code).toBeInstanceOf(DatabaseOutcomeUnknownError);
    }
  });

  it("names DATABASE_URL for a refused login, Neon's (no SQLSTATE) or Postgres' own", () => {
    const refusals = [
      neonError("password authentication failed for user 'app'", { code: "", severity: "" }),
      neonError("missing authentication credentials: required password", { code: "" }),
      neonError('password authentication failed for user "app"', { code: "28P01", severity: "FATAL" }),
      neonError('database "x" does not exist', { code: "3D000", severity: "FATAL" }),
    ];
    for (const refusal of refusals) {
      const error = toPortError(refusal);
      expect(error).toBeInstanceOf(SettingsError);
      expect(error.message).toMatch(/^DATABASE_URL was refused by the database at login/);
      expect(error.message).not.toMatch(/'app'|"app"|"x"/);
    }
  });

  it("answers unavailable when nothing listens at the endpoint, saying so beyond fetch's 'fetch failed'", async () => {
    const port = await refusedPort();
    const sql = createNeonSql({
      databaseUrl: `postgres://app:pw-for-tests@127.0.0.1:${port}/db`,
      fetchEndpoint: `http://127.0.0.1:${port}/sql`,
      timeoutMs: 2_000,
    });
    const error = await sql.query("SELECT 1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    // What the operator's database_unavailable line carries: why, not only that fetch failed.
    expect((error as Error).message).toMatch(/fetch failed \(.*ECONNREFUSED 127\.0\.0\.1:\d+\)$/);
  });
});

describe("each round trip's time bound", () => {
  it("a round trip with no answer within timeoutMs is abandoned: its outcome is unknown", async () => {
    const server = createServer(() => {}).listen(0, "127.0.0.1"); // reads the request, never answers
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    try {
      const sql = createNeonSql({
        databaseUrl: `postgres://u:p@127.0.0.1:${port}/db`,
        fetchEndpoint: `http://127.0.0.1:${port}/sql`,
        timeoutMs: 200,
      });
      const started = Date.now();
      await expect(sql.query("INSERT INTO t DEFAULT VALUES")).rejects.toBeInstanceOf(DatabaseOutcomeUnknownError);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("leaves no timer behind once answered", async () => {
    const answer = { fields: [], rows: [], command: "SELECT", rowCount: 0, rowAsArray: true };
    const answered: typeof fetch = async (_, init) =>
      new Response(JSON.stringify("queries" in JSON.parse(String(init?.body)) ? { results: [answer] } : answer));
    const sql = createNeonSql({
      databaseUrl: "postgres://u:p@answered.test/db",
      fetchEndpoint: "http://answered.test/sql",
      fetchFunction: answered,
    });
    vi.useFakeTimers();
    try {
      await sql.query("SELECT 1");
      await sql.transaction([{ text: "SELECT 1", params: [] }]);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
