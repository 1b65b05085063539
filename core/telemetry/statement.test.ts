import { describe, expect, it } from "vitest";
import { describeStatement } from "./statement.ts";

describe("a statement as a span names it", () => {
  it.each([
    ["SELECT id FROM assets WHERE tenant_id = $1", { operation: "SELECT", table: "assets" }],
    [
      "INSERT INTO documents (a) VALUES ($1) ON CONFLICT (a) DO UPDATE SET a = $1",
      { operation: "INSERT", table: "documents" },
    ],
    [
      "WITH gone AS (DELETE FROM linked_external_accounts WHERE x = $1 RETURNING *) SELECT * FROM gone",
      { operation: "DELETE", table: "linked_external_accounts" },
    ],
    ["SELECT * FROM link_changes ORDER BY id FOR UPDATE SKIP LOCKED", { operation: "SELECT", table: "link_changes" }],
    ["-- a comment\n  update assets SET name = 'x'", { operation: "UPDATE", table: "assets" }],
    ["SELECT 1", { operation: "SELECT" }],
  ])("%j", (text, summary) => {
    expect(describeStatement(text)).toEqual(summary);
  });
});
