// Runs the background jobs (job.ts) it is given, the capabilities' (core/capabilities.ts), for a deployment: on a timer or a cron, within
// one invocation's budget of the platform's limits; after a response, when the deployment's lease
// has run out (platforms without a scheduler); or on request. One run at a time per instance. The
// every-minute jobs run first, in a share of the budget, so a sync that never catches up still
// leaves time to remove what expired; when they are next due is kept in KV too, so platforms that
// start an instance per request (Fastly Compute) do not run them on every run.
import { type Context, type SpanContext, SpanStatusCode, trace } from "@opentelemetry/api";
import { withDeadline } from "../lib/deadline.ts";
import { elapsedSince } from "../lib/elapsed.ts";
import { consoleLogger, errorMessage, type Logger } from "../log.ts";
import { DEFAULT_KV_TIMEOUT_MS, type KvCache, MIN_KV_TTL_SECONDS } from "../ports/kv.ts";
import type { Sql } from "../ports/sql.ts";
import type { Settings } from "../settings/settings.ts";
import { inSpan, startRootSpan, type Telemetry, tracedKv, tracedSql, traceLogFields } from "../telemetry/tracing.ts";
import { createInvocationBudget, type InvocationBudget, type InvocationLimits } from "./invocation-budget.ts";
import type { Background, BackgroundJob, BackgroundReport, JobContext, JobOutcome } from "./job.ts";

/** Outside every capability's prefix, so no listing of cached entries ever sees them. */
export const BACKGROUND_LEASE_KEY = "background/lease";
export const EVERY_MINUTE_DUE_KEY = "background/every-minute-due";

/** How often the every-minute jobs run, when the last run finished them. */
const EVERY_MINUTE_MS = 60_000;
/** The share of a run's time and statements the every-minute jobs may take before the others. */
const EVERY_MINUTE_SHARE = 0.25;
/** How long one run may take; a scheduled run (`runFor`) may use its whole period. */
const DEFAULT_RUN_TIME_MS = 30_000;

/**
 * A KV lifetime that keeps an entry until `at` (its value holds that time): the store's floor, or
 * longer. Gone sooner, a lease or a due time would let the next instance run early.
 */
const lifetimeUntil = (at: number, now: number) => Math.max(MIN_KV_TTL_SECONDS, Math.ceil((at - now) / 1000));

interface BackgroundDeps {
  sql: Sql;
  kv: KvCache;
  settings: Settings;
  logger?: Logger;
  /** Each run is a trace of its own, each job a span in it, its statements and KV calls theirs. */
  telemetry?: Telemetry;
}

interface BackgroundOptions {
  /** What it runs, in this order (the app's composer passes the capabilities' jobs). */
  jobs: readonly BackgroundJob[];
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** The platform's per-invocation limits (Workers: 1,000 KV operations); none by default. */
  limits?: InvocationLimits;
  /** How long one run may take. */
  runTimeMs?: number;
  /** Handed to every job (tests make it small). */
  batchSize?: number;
}

export function createBackground(deps: BackgroundDeps, options: BackgroundOptions): Background {
  const { now = () => Date.now(), sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms)) } = options;
  const { jobs, limits = {}, runTimeMs = DEFAULT_RUN_TIME_MS } = options;
  const everyMinute = jobs.filter((job) => job.cadence === "every-minute");
  const intervalMs = deps.settings.linkSyncIntervalSeconds * 1000;
  const logger = deps.logger ?? consoleLogger;
  const dueAt = dueTimeIn(deps.kv, now);
  let running: Promise<BackgroundReport> | undefined;
  let ranAt = Number.NEGATIVE_INFINITY;

  /** An invocation's budget: the platform's limits, for `ms` from now. */
  const budgetFor = (ms: number) => createInvocationBudget(limits, now() + ms, now);
  const contextFor = (budget: InvocationBudget, ports: JobPorts): JobContext => ({
    ...deps,
    ...ports,
    budget,
    batchSize: options.batchSize,
  });
  const { telemetry } = deps;
  let runTrace: Context | undefined;

  async function runJob(job: BackgroundJob, budget: InvocationBudget): Promise<JobOutcome> {
    const run = (ports: JobPorts) => job.run(contextFor(budget, ports));
    let jobSpan: SpanContext | undefined;
    try {
      if (!telemetry || !runTrace) return await run({ sql: deps.sql, kv: deps.kv, logger });
      return await inSpan(telemetry, runTrace, `job ${job.name}`, { "job.name": job.name }, async (span) => {
        jobSpan = span.spanContext();
        const parent = trace.setSpan(runTrace!, span);
        const outcome = await run({
          sql: tracedSql(deps.sql, telemetry, parent),
          kv: tracedKv(deps.kv, telemetry, parent),
          // What the job logs itself (the sync's link_sync_failed) names the span that holds it.
          logger: withTrace(logger, jobSpan),
        });
        // A job that stops at a failure it logged itself (the sync) returns: its span failed all the same.
        if (outcome.failed) span.setStatus({ code: SpanStatusCode.ERROR });
        return outcome;
      });
    } catch (error) {
      // The job's span holds the failed statement or KV call: the line names it.
      const fields = { job: job.name, error: errorMessage(error), ...traceLogFields(jobSpan) };
      logger.log("warn", "background_job_failed", fields);
      return { done: false, failed: true };
    }
  }

  /** The every-minute jobs, when due, in a share of `budget`; a run that did not finish goes on next time. */
  async function runEveryMinute(budget: InvocationBudget, report: BackgroundReport): Promise<void> {
    if (everyMinute.length === 0 || !(await dueAt.reached(budget))) return;
    const share = budget.within(
      budget.timeLeft() * EVERY_MINUTE_SHARE,
      Math.floor(budget.sqlLeft() * EVERY_MINUTE_SHARE) || 1,
    );
    const outcomes = [];
    for (const job of everyMinute) {
      const outcome = await runJob(job, share);
      report.outcomes.set(job, outcome);
      outcomes.push(outcome);
    }
    const done = outcomes.every((outcome) => outcome.done);
    if (done) await dueAt.set(now() + EVERY_MINUTE_MS, budget);
    // Only the tables' size depends on them: after a failure, the next minute tries again.
    else dueAt.keepLocally(outcomes.some((outcome) => outcome.failed) ? now() + EVERY_MINUTE_MS : now());
    const removed = removedByJob(report);
    if (Object.values(removed).some((count) => count > 0)) logger.log("info", "housekeeping", { ...removed, done });
  }

  function runWithin(budget: InvocationBudget, selected = jobs): Promise<BackgroundReport> {
    // Any run counts for runIfDue: a request that ran the jobs (the sync route) has spent the
    // invocation's budget, and the run after its response would spend it a second time.
    ranAt = now();
    running ??= (async () => {
      const root = telemetry && startRootSpan(telemetry, "background run");
      runTrace = root?.context;
      const report: BackgroundReport = { outcomes: new Map() };
      try {
        await runEveryMinute(budget, report);
        for (const job of selected) {
          if (job.cadence !== "every-run") continue;
          const outcome = await runJob(job, budget);
          report.outcomes.set(job, outcome);
          report.outOf ??= outcome.outOf;
        }
        if (report.outOf) root?.span.setAttribute("background.out_of", report.outOf);
        return report;
      } finally {
        root?.span.end();
        runTrace = undefined;
      }
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  const run = () => runWithin(budgetFor(runTimeMs));

  async function runNow<Outcome extends JobOutcome>(job: BackgroundJob<Outcome>): Promise<Outcome> {
    await running;
    const report = await runWithin(budgetFor(runTimeMs), [job]);
    return report.outcomes.get(job) as Outcome; // set by the run above: `job` is every-run
  }

  /**
   * A run when this deployment's lease in KV has run out, at most once per interval per instance
   * and, the store permitting, per deployment. Two instances that both take the lease only run
   * twice, which is harmless.
   */
  async function runIfDue(): Promise<BackgroundReport | undefined> {
    const at = now();
    if (elapsedSince(at, ranAt) < intervalMs) return undefined;
    ranAt = at;
    try {
      const lease = await withDeadline(() => deps.kv.get(BACKGROUND_LEASE_KEY), DEFAULT_KV_TIMEOUT_MS);
      // Taken for an interval at most: a lease ending further ahead (a writer's clock ahead of
      // this one, or a value something else put there) holds no one back, or it could for ever.
      const leaseEnd = Number(lease);
      if (lease !== null && leaseEnd > at && leaseEnd <= at + intervalMs) return undefined;
      const until = at + intervalMs;
      await withDeadline(
        () => deps.kv.put(BACKGROUND_LEASE_KEY, String(until), { ttlSeconds: lifetimeUntil(until, at) }),
        DEFAULT_KV_TIMEOUT_MS,
      );
    } catch (error) {
      logger.log("warn", "background_lease_failed", { error: errorMessage(error) });
      return undefined;
    }
    return run();
  }

  /** Runs for `periodMs`, back to back while a job's backlog lasts, then every interval; one budget. */
  async function runFor(periodMs: number): Promise<void> {
    const end = now() + periodMs;
    const budget = budgetFor(periodMs);
    for (;;) {
      const report = await runWithin(budget);
      if (report.outOf === "budget" || now() >= end) return;
      if (report.outOf === "time") continue;
      if (now() + intervalMs >= end) return;
      await sleep(intervalMs);
    }
  }

  /**
   * A request's work bounded by the platform's limits (a resync): the invocation's budget, which
   * a run after its response (Compute: the same execution) would spend a second time.
   */
  function invocationBudget(): InvocationBudget {
    ranAt = now();
    return budgetFor(runTimeMs);
  }

  return { run, runIfDue, runFor, runNow, invocationBudget, intervalMs };
}

/** What a job works through, and where it logs. */
type JobPorts = Pick<JobContext, "sql" | "kv" | "logger">;

/** `logger` with `span`'s trace on every line, as a request's lines carry theirs. */
function withTrace(logger: Logger, span: SpanContext): Logger {
  const fields = traceLogFields(span);
  return { log: (level, event, extra) => logger.log(level, event, { ...extra, ...fields }) };
}

/** What each cleanup of `report` removed, by job name, for the log. */
function removedByJob(report: BackgroundReport): Record<string, number> {
  const removed: Record<string, number> = {};
  for (const [job, outcome] of report.outcomes) if ("removed" in outcome) removed[job.name] = Number(outcome.removed);
  return removed;
}

/**
 * When the every-minute jobs are next due: this instance's own time first, then the deployment's,
 * kept in KV (counted in the budget) for instances that live one request. An unreadable KV says due.
 */
function dueTimeIn(kv: KvCache, now: () => number) {
  let localDueAt = Number.NEGATIVE_INFINITY;
  return {
    async reached(budget: InvocationBudget): Promise<boolean> {
      // Set a minute ahead at most: further ahead, the clock has stepped back since.
      if (localDueAt - now() > EVERY_MINUTE_MS) localDueAt = Number.NEGATIVE_INFINITY;
      if (now() < localDueAt) return false;
      if (budget.kvLeft() < 1) return true;
      const metered = budget.meterKv(kv);
      const stored = Number(
        await withDeadline(() => metered.get(EVERY_MINUTE_DUE_KEY), DEFAULT_KV_TIMEOUT_MS).catch(() => null),
      );
      // Set a minute ahead at most: one further ahead (a clock ahead, another writer) is due now.
      if (stored > now() && stored <= now() + EVERY_MINUTE_MS) localDueAt = stored;
      return now() >= localDueAt;
    },
    /** For this instance and (best effort) the deployment. */
    async set(at: number, budget: InvocationBudget): Promise<void> {
      localDueAt = at;
      if (budget.kvLeft() < 1) return;
      const metered = budget.meterKv(kv);
      await withDeadline(
        () => metered.put(EVERY_MINUTE_DUE_KEY, String(at), { ttlSeconds: lifetimeUntil(at, now()) }),
        DEFAULT_KV_TIMEOUT_MS,
      ).catch(() => undefined); // then the next instance runs them again: only some statements lost
    },
    keepLocally(at: number) {
      localDueAt = at;
    },
  };
}
