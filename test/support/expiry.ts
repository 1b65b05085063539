// The housekeeping's loop over one cleanup of expired keys, for the tests of each statement.
import { expect } from "vitest";
import { expireKeys } from "../../core/idempotency/expiry.ts";
import type { Sql } from "../../core/ports/sql.ts";

/**
 * Runs `statement` in batches of at most `limit` until one comes back short, as the housekeeping
 * does; checks that none went over the limit and answers how many keys they freed in all.
 */
export async function expireInBatches(sql: Sql, statement: string, limit: number): Promise<number> {
  const batches: number[] = [];
  for (let batch = limit; batch === limit; ) {
    batch = await expireKeys(sql, statement, limit);
    batches.push(batch);
    expect(batches.length, "batches before one came back short").toBeLessThan(1_000);
  }
  expect(batches.every((freed) => freed <= limit)).toBe(true);
  return batches.reduce((sum, freed) => sum + freed, 0);
}
