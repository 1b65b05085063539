import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../../test/support/harness.ts";
import { removeExpired } from "./housekeeping.ts";
import { createInvocationBudget } from "./invocation-budget.ts";

const RETENTION = 3600;

describe("removing what has expired", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ backend: "pglite" });
  }, 120_000);
  afterAll(() => harness?.close());

  const oldChanges = (count: number) =>
    harness.sql.query(
      `INSERT INTO link_changes (tenant_id, provider, external_account_id, changed_at)
       SELECT 'old', 'github', 'a-' || n, now() - interval '2 hours' FROM generate_series(1, $1::int) AS n`,
      [String(count)],
    );
  const expiredKeys = (count: number) =>
    harness.sql.query(
      `INSERT INTO documents (tenant_id, contract_id, idempotency_key, request_fingerprint, idempotency_expires_at)
       SELECT 'old', 'C', 'k-' || n, 'f', now() - interval '1 second' FROM generate_series(1, $1::int) AS n`,
      [String(count)],
    );
  const count = async (query: string) => Number((await harness.sql.query(query))[0]?.n);

  it("prunes old changes and clears expired keys batch by batch, one statement each, to the end", async () => {
    await oldChanges(25);
    await expiredKeys(12);
    await harness.sql.query(
      "INSERT INTO link_changes (tenant_id, provider, external_account_id) VALUES ('new', 'github', 'recent')",
    );
    harness.stack.endpoint.resetStatements();
    const budget = createInvocationBudget({}, Date.now() + 30_000);
    const report = await removeExpired(harness.sql, { retentionSeconds: RETENTION, budget, batchSize: 10 });
    expect(report).toEqual({ prunedChanges: 25, expiredKeys: 12, done: true });
    expect(harness.stack.endpoint.statements()).toBe(3 + 2 + 1); // 10, 10, 5 changes; 10, 2 keys; no asset key
    expect(await count("SELECT count(*) AS n FROM link_changes")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM documents WHERE idempotency_key IS NOT NULL")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM documents")).toBe(12); // the documents stay
  });

  it("stops when the invocation's statements or time are spent, and the next run goes on", async () => {
    await oldChanges(25);
    const twoStatements = createInvocationBudget({ sqlStatements: 2 }, Date.now() + 30_000);
    expect(
      await removeExpired(harness.sql, { retentionSeconds: RETENTION, budget: twoStatements, batchSize: 10 }),
    ).toEqual({ prunedChanges: 20, expiredKeys: 0, done: false });
    const noTime = createInvocationBudget({}, Date.now() - 1);
    expect(await removeExpired(harness.sql, { retentionSeconds: RETENTION, budget: noTime, batchSize: 10 })).toEqual({
      prunedChanges: 0,
      expiredKeys: 0,
      done: false,
    });
    const rest = createInvocationBudget({}, Date.now() + 30_000);
    expect(await removeExpired(harness.sql, { retentionSeconds: RETENTION, budget: rest, batchSize: 10 })).toEqual({
      prunedChanges: 5,
      expiredKeys: 0,
      done: true,
    });
  });
});
