// Removes what has expired, in bounded batches: link changes past the feed's retention and
// Idempotency-Keys past their expiry. Each batch is one short statement (its own transaction),
// so no lock is held for long and traffic never queues behind the cleanup; it stops when both
// are done, or when the invocation's time or statement budget would not cover another batch.
// Every deployment runs it with its drain of the link feed; two at once skip each other's rows.
import { ASSET_KEYS_EXPIRY } from "../assets/create-once.ts";
import { expireKeys } from "../documents/idempotency.ts";
import { DOCUMENT_KEYS_EXPIRY } from "../documents/repository.ts";
import { pruneChanges } from "../links/changes.ts";
import type { Sql } from "../ports/sql.ts";
import type { InvocationBudget } from "./invocation-budget.ts";

export const HOUSEKEEPING_BATCH_SIZE = 1_000;

export interface HousekeepingReport {
  prunedChanges: number;
  expiredKeys: number;
  /** Whether nothing expired is left (false: stopped by its budget; the next run goes on). */
  done: boolean;
}

interface HousekeepingOptions {
  retentionSeconds: number;
  budget: InvocationBudget;
  batchSize?: number;
}

export async function removeExpired(sql: Sql, options: HousekeepingOptions): Promise<HousekeepingReport> {
  const { budget, batchSize = HOUSEKEEPING_BATCH_SIZE } = options;
  const metered = budget.meterSql(sql);
  const report: HousekeepingReport = { prunedChanges: 0, expiredKeys: 0, done: false };
  const tasks = [
    {
      run: () => pruneChanges(metered, options.retentionSeconds, batchSize),
      add: (n: number) => (report.prunedChanges += n),
    },
    ...[DOCUMENT_KEYS_EXPIRY, ASSET_KEYS_EXPIRY].map((statement) => ({
      run: () => expireKeys(metered, statement, batchSize),
      add: (n: number) => (report.expiredKeys += n),
    })),
  ];
  for (const task of tasks) {
    for (;;) {
      if (budget.sqlLeft() < 1 || budget.timeLeft() <= 0) return report;
      const removed = await task.run();
      task.add(removed);
      if (removed < batchSize) break;
    }
  }
  report.done = true;
  return report;
}
