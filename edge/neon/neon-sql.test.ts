import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { DatabaseOutcomeUnknownError, DatabaseUnavailableError } from "../../core/ports/sql.ts";
import { SettingsError } from "../../core/settings.ts";
import { sqlContract } from "../../test/ports/sql-contract.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { NeonQueryError } from "./neon-http.ts";
import { createNeonSql, toPortError } from "./neon-sql.ts";

describeOnBackends("SQL port over Neon's HTTP protocol", (harness) => {
  for (const [name, run] of sqlContract) it(`contract: ${name}`, () => run(harness().sql));

  it("costs one endpoint round trip per statement", async () => {
    const { sql, stack } = harness();
    stack.endpoint.resetStatements();
    await sql.query("SELECT 1");
    expect(stack.endpoint.statements()).toBe(1);
  });
});

describe("createNeonSql", () => {
  it("refuses a connection string Neon would refuse, naming the setting and not its value", () => {
    const make = () => createNeonSql({ databaseUrl: "postgres://secret-host.example/" });
    expect(make).toThrow(SettingsError);
    expect(make).toThrow(/^DATABASE_URL must be/);
    expect(make).not.toThrow(/secret-host/);
  });
});

describe("toPortError", () => {
  it("keeps SQLSTATE and constraint from Postgres' refusal", () => {
    const refusal = new NeonQueryError("duplicate", { code: "23505", constraint: "k", table: "t" });
    expect(toPortError(refusal)).toMatchObject({ code: "23505", constraint: "k", table: "t" });
  });

  it("answers unavailable (nothing written) for refusals that rolled the statement back", () => {
    for (const code of ["57014", "55P03", "40001", "40P01", "25006", "57P03", "53300", "08006"]) {
      expect(toPortError(new NeonQueryError("refused", { code })), code).toBeInstanceOf(DatabaseUnavailableError);
    }
    const notStarted = new NeonQueryError("Server error (HTTP status 503): not started", { status: 503 });
    expect(toPortError(notStarted)).toBeInstanceOf(DatabaseUnavailableError);
  });

  it("answers outcome unknown when the request may have reached the database unanswered", () => {
    const reset = new NeonQueryError("Error connecting to database: fetch failed", {
      sourceError: new TypeError("fetch failed", {
        cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
      }),
    });
    expect(toPortError(reset)).toBeInstanceOf(DatabaseOutcomeUnknownError);
    const badGateway = new NeonQueryError("Server error (HTTP status 502): bad gateway", { status: 502 });
    expect(toPortError(badGateway)).toBeInstanceOf(DatabaseOutcomeUnknownError);
    expect(toPortError(new DOMException("timed out", "TimeoutError"))).toBeInstanceOf(DatabaseOutcomeUnknownError);
  });

  it("answers unavailable when nothing listens at the endpoint", async () => {
    const server = createServer().listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    await new Promise((done) => server.close(done)); // the port is now closed: connection refused
    const sql = createNeonSql({
      databaseUrl: `postgres://u:p@127.0.0.1:${port}/db`,
      fetchEndpoint: `http://127.0.0.1:${port}/sql`,
      timeoutMs: 2_000,
    });
    await expect(sql.query("SELECT 1")).rejects.toBeInstanceOf(DatabaseUnavailableError);
  });
});

describe("each round trip's time bound", () => {
  const databaseUrl = "postgres://u:p@127.0.0.1:9/db";

  it("a round trip with no answer within timeoutMs is abandoned: its outcome is unknown", async () => {
    const unanswered: typeof fetch = (_, init) =>
      new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const sql = createNeonSql({ databaseUrl, fetchFunction: unanswered, timeoutMs: 20 });
    await expect(sql.query("SELECT 1")).rejects.toBeInstanceOf(DatabaseOutcomeUnknownError);
  });

  it("leaves no timer behind once answered", async () => {
    const answer = { fields: [], rows: [], command: "SELECT", rowCount: 0, rowAsArray: true };
    const answered: typeof fetch = async (_, init) =>
      new Response(JSON.stringify("queries" in JSON.parse(String(init?.body)) ? { results: [answer] } : answer));
    vi.useFakeTimers();
    try {
      const sql = createNeonSql({ databaseUrl, fetchFunction: answered });
      await sql.query("SELECT 1");
      await sql.transaction([{ text: "SELECT 1", params: [] }]);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
      vi.restoreAllMocks();
    }
  });
});
