import { NeonDbError } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import { DatabaseUnavailableError } from "../../core/ports/sql.ts";
import { sqlContract } from "../../test/ports/sql-contract.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { createNeonSql, toPortError } from "./neon-sql.ts";

describeOnBackends("SQL port over the Neon driver", (harness) => {
  for (const [name, run] of sqlContract) it(`contract: ${name}`, () => run(harness().sql));

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
