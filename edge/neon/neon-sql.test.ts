import { NeonDbError } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import { DatabaseError, DatabaseUnavailableError, isUniqueViolation } from "../../core/ports/sql.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { createNeonSql, toPortError } from "./neon-sql.ts";

const insertLink = `INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
                   VALUES ('acme', $1, $2, $3) RETURNING id`;

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

  it("treats anything without SQLSTATE as the database being unavailable", () => {
    expect(toPortError(new Error("Server error (HTTP status 502): bad gateway"))).toBeInstanceOf(DatabaseUnavailableError);
    expect(toPortError(new DOMException("timed out", "TimeoutError"))).toBeInstanceOf(DatabaseUnavailableError);
  });

  it("answers unavailable when nothing listens at the endpoint", async () => {
    const sql = createNeonSql({
      databaseUrl: "postgres://u:p@127.0.0.1:1/db",
      fetchEndpoint: "http://127.0.0.1:1/sql",
      timeoutMs: 2_000,
    });
    await expect(sql.query("SELECT 1")).rejects.toBeInstanceOf(DatabaseUnavailableError);
  });
});
