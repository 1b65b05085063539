// What a capability hands the background runner (runner.ts): jobs that run after the requests,
// each within the invocation's budget. A job runs on every run (the link sync) or about once a
// minute per deployment (removing what has expired); it says whether it finished, and a job that
// did not goes on in the next run.
import type { Logger } from "../log.ts";
import type { KvCache } from "../ports/kv.ts";
import type { Sql } from "../ports/sql.ts";
import type { Settings } from "../settings/settings.ts";
import type { InvocationBudget } from "./invocation-budget.ts";

/** What a job works with: the ports as they are (it meters them with `budget`), and its share. */
export interface JobContext {
  sql: Sql;
  kv: KvCache;
  settings: Settings;
  logger: Logger;
  budget: InvocationBudget;
  /** Rows or changes per statement, when not the job's own default (tests make it small). */
  batchSize?: number;
}

export interface JobOutcome {
  /** Whether nothing is left (false: stopped by its budget or a failure; the next run goes on). */
  done: boolean;
  /** What ended a job that did not finish, when its budget did. */
  outOf?: "time" | "budget";
  /** Whether it stopped at a failure (logged); every-minute jobs then wait a minute. */
  failed?: boolean;
}

export interface BackgroundJob<Outcome extends JobOutcome = JobOutcome> {
  /** `<capability>/<what>`, as logged. */
  name: string;
  /**
   * `every-run`: on each run, with what its budget leaves. `every-minute`: before those, about
   * once a minute per deployment, together with the other such jobs in a share of the budget.
   */
  cadence: "every-run" | "every-minute";
  run(context: JobContext): Promise<Outcome>;
}

/** How the runtimes trigger the background work, and how a request runs one job at once. */
export interface Background {
  /** Every due job now, within one invocation's budget (or the run already going). */
  run(): Promise<BackgroundReport>;
  /** For platforms without a scheduler, after a response: a run when the deployment's lease is free. */
  runIfDue(): Promise<BackgroundReport | undefined>;
  /** For a scheduler coarser than the interval (a cron each minute): runs for `periodMs`, one budget. */
  runFor(periodMs: number): Promise<void>;
  /** `job` (with the every-minute jobs when due) in a run that starts after this call; its outcome. */
  runNow<Outcome extends JobOutcome>(job: BackgroundJob<Outcome>): Promise<Outcome>;
  /** The invocation's budget, for a request's own bounded work (resync): no run follows its response. */
  invocationBudget(): InvocationBudget;
  /** How often a deployment runs its jobs (LINK_SYNC_INTERVAL_SECONDS). */
  readonly intervalMs: number;
}

export interface BackgroundReport {
  /** Each job that ran, by name. */
  outcomes: Map<BackgroundJob, JobOutcome>;
  /** What stopped the every-run jobs short, if anything did. */
  outOf?: "time" | "budget";
}

/** Rows per statement of a cleanup: short enough that no lock is held for long. */
export const CLEANUP_BATCH_SIZE = 1_000;

export interface CleanupOutcome extends JobOutcome {
  removed: number;
}

/**
 * A cleanup run batch by batch: `batch(sql, limit)` is one statement that removes at most `limit`
 * rows and answers how many; it runs until one comes back short, or the budget would not cover
 * another. Each batch is its own short transaction, so traffic never queues behind the cleanup.
 */
export async function inBatches(
  context: JobContext,
  batch: (sql: Sql, limit: number) => Promise<number>,
): Promise<CleanupOutcome> {
  const { budget, batchSize = CLEANUP_BATCH_SIZE } = context;
  const sql = budget.meterSql(context.sql);
  let removed = 0;
  for (;;) {
    if (budget.sqlLeft() < 1) return { done: false, removed, outOf: "budget" };
    if (budget.timeLeft() <= 0) return { done: false, removed, outOf: "time" };
    const count = await batch(sql, batchSize);
    removed += count;
    if (count < batchSize) return { done: true, removed };
  }
}
