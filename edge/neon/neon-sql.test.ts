import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { NeonDbError } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import {
  DatabaseError,
  DatabaseOutcomeUnknownError,
  DatabaseUnavailableError,
  isUniqueViolation,
} from "../../core/ports/sql.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { createNeonSql, toPortError } from "./neon-sql.ts";

const insertLink = `INSERT INTO linked_external_accounts (provider, external_account_id, user_id)
                   VALUES ($1, $2, $3) RETURNING id`;

describeOnBackends("SQL port over the Neon driver", (harness) => {
  it("runs a parameterized statement and returns row objects", async () => {
    const rows = await harness().sql.query<{ n: string; t: string }>("SELECT $1::int8 AS n, $2::text AS t", [42, "x"]);
    expect(rows).toEqual([{ n: "42", t: "x" }]);
  });

  it("reports a unique violation as 23505 with the index's name", async () => {
    const { sql } = harness();
    await sql.query(insertLink, ["github", "unique-1", "alice"]);
    const error = await sql.query(insertLink, ["github", "unique-1", "bob"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    expect(error).toMatchObject({ code: "23505", constraint: "linked_external_accounts_external_account_key" });
    expect(isUniqueViolation(error, "linked_external_accounts_external_account_key")).toBe(true);
    expect(isUniqueViolation(error, "linked_external_accounts_user_provider_key")).toBe(false);
  });

  it("refuses an un-normalized provider in the database itself", async () => {
    const error = await harness().sql.query(insertLink, [" GitHub", "unique-2", "carol"]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "23514" });
  });

  it("rolls a transaction back entirely when a statement fails midway", async () => {
    const { sql } = harness();
    const failing = sql.transaction([
      { text: insertLink, params: ["gitlab", "batch-1", "dave"] },
      { text: insertLink, params: ["gitlab", "batch-1", "erin"] },
    ]);
    await expect(failing).rejects.toMatchObject({ code: "23505" });
    const rows = await sql.query("SELECT count(*)::int AS n FROM linked_external_accounts WHERE external_account_id = $1", [
      "batch-1",
    ]);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it("honours the transaction's isolation level", async () => {
    const [rows] = await harness().sql.transaction(
      [{ text: "SELECT current_setting('transaction_isolation') AS level" }],
      { isolationLevel: "Serializable" },
    );
    expect(rows).toEqual([{ level: "serializable" }]);
  });

  it("costs one endpoint round trip per statement", async () => {
    const { sql, stack } = harness();
    stack.endpoint.resetStatements();
    await sql.query("SELECT 1");
    expect(stack.endpoint.statements()).toBe(1);
  });
});

describe("toPortError", () => {
  it("keeps SQLSTATE and constraint from the driver's error", () => {
    const driverError = Object.assign(new NeonDbError("duplicate"), { code: "23505", constraint: "k", table: "t" });
    expect(toPortError(driverError)).toMatchObject({ code: "23505", constraint: "k", table: "t" });
  });

  it("answers unavailable (nothing written) for refusals that rolled the statement back", () => {
    for (const code of ["57014", "55P03", "40001", "40P01", "25006", "57P03", "53300", "08006"]) {
      expect(toPortError(Object.assign(new NeonDbError("refused"), { code })), code).toBeInstanceOf(DatabaseUnavailableError);
    }
    expect(toPortError(new NeonDbError("Server error (HTTP status 503): not started"))).toBeInstanceOf(
      DatabaseUnavailableError,
    );
  });

  it("answers outcome unknown when the request may have reached the database unanswered", () => {
    const reset = Object.assign(new NeonDbError("Error connecting to database: fetch failed"), {
      sourceError: new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) }),
    });
    expect(toPortError(reset)).toBeInstanceOf(DatabaseOutcomeUnknownError);
    expect(toPortError(new NeonDbError("Server error (HTTP status 502): bad gateway"))).toBeInstanceOf(
      DatabaseOutcomeUnknownError,
    );
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
