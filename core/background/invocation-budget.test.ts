import { describe, expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import type { Sql } from "../ports/sql.ts";
import { BudgetExhaustedError, createInvocationBudget } from "./invocation-budget.ts";

const sql: Sql = { query: async () => [], transaction: async () => [] };

describe("an invocation's budget", () => {
  it("counts every KV call and SQL round trip, and refuses the one past the limit without making it", async () => {
    const store = createMemoryKv();
    const budget = createInvocationBudget({ kvOperations: 3, sqlStatements: 1 }, Date.now() + 1_000);
    const kv = budget.meterKv(store);
    await kv.put("a", "1", { ttlSeconds: 60 });
    await kv.get("a");
    await kv.list("");
    expect(budget.kvLeft()).toBe(0);
    await expect(kv.delete("a")).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(await store.get("a")).toBe("1");
    await budget.meterSql(sql).query("SELECT 1");
    await expect(budget.meterSql(sql).transaction([])).rejects.toBeInstanceOf(BudgetExhaustedError);
  });

  it("is unlimited where the platform sets no limit, and tells the time left", () => {
    let clock = 0;
    const budget = createInvocationBudget({}, 500, () => clock);
    expect(budget.kvLeft()).toBe(Number.POSITIVE_INFINITY);
    clock = 200;
    expect(budget.timeLeft()).toBe(300);
  });

  it("gives a share less time and fewer statements, spent from the same counts", async () => {
    let clock = 0;
    const budget = createInvocationBudget({ sqlStatements: 10 }, 1_000, () => clock);
    const share = budget.within(100, 2);
    expect(share.timeLeft()).toBe(100);
    const metered = share.meterSql(sql);
    await metered.query("SELECT 1");
    await metered.query("SELECT 2");
    expect(share.sqlLeft()).toBe(0);
    await expect(metered.query("SELECT 3")).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(budget.sqlLeft()).toBe(8);
    clock = 150;
    expect(share.timeLeft()).toBe(-50);
    expect(budget.timeLeft()).toBe(850);
  });
});
