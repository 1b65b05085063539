// When this deployment drains the change feed into its KV cache (drain.ts does the draining): on a
// timer or a cron, within one invocation's budget of the platform's limits; after a response,
// when the deployment's lease has run out (platforms without a scheduler); or on request. Before
// draining, the deployment removes expired rows (housekeeping.ts) about once a minute: when it is
// next due is kept in KV too, so platforms that start an instance per request (Fastly Compute) do
// not run it before every drain.
import { type HousekeepingReport, removeExpired } from "../background/housekeeping.ts";
import {
  createInvocationBudget,
  type InvocationBudget,
  type InvocationLimits,
} from "../background/invocation-budget.ts";
import { withDeadline } from "../lib/deadline.ts";
import { consoleLogger, errorMessage, type Logger } from "../log.ts";
import { DEFAULT_KV_TIMEOUT_MS, type KvCache } from "../ports/kv.ts";
import type { Sql } from "../ports/sql.ts";
import type { Settings } from "../settings/settings.ts";
import { DEFAULT_DRAIN_TIME_MS, type DrainReport, drainLinkChanges } from "./drain.ts";

export const SYNC_LEASE_KEY = "links/sync/lease";
export const HOUSEKEEPING_DUE_KEY = "links/sync/housekeeping-due";

/** The feed keeps changes at least this long (or the cache lifetime, when longer). */
const MIN_CHANGE_RETENTION_SECONDS = 3600;
/** How often an instance removes expired rows, when the last run finished. */
const HOUSEKEEPING_INTERVAL_MS = 60_000;
/** The share of a drain's time and statements the housekeeping may take before the drain itself. */
const HOUSEKEEPING_SHARE = 0.25;
const LEASE_TTL_SECONDS = 60; // the store's floor; the lease's own time is in its value

interface LinkSyncDeps {
  sql: Sql;
  kv: KvCache;
  settings: Pick<Settings, "linkCacheTtlSeconds" | "linkSyncIntervalSeconds">;
  logger?: Logger;
}

interface LinkSyncOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  batchSize?: number;
  /** The platform's per-invocation limits (Workers: 1,000 KV operations); none by default. */
  limits?: InvocationLimits;
  /** How long one drain may run; a scheduled run (`runFor`) may use its whole period. */
  drainTimeMs?: number;
}

export type LinkSync = ReturnType<typeof createLinkSync>;

/** The three ways a platform triggers a drain; one drain at a time per instance. */
export function createLinkSync(deps: LinkSyncDeps, options: LinkSyncOptions = {}) {
  const { now = () => Date.now(), sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms)) } = options;
  const { limits = {}, drainTimeMs = DEFAULT_DRAIN_TIME_MS } = options;
  const intervalMs = deps.settings.linkSyncIntervalSeconds * 1000;
  const retentionSeconds = Math.max(deps.settings.linkCacheTtlSeconds, MIN_CHANGE_RETENTION_SECONDS);
  const logger = deps.logger ?? consoleLogger;
  let running: Promise<DrainReport> | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let housekeepingDueAt = Number.NEGATIVE_INFINITY;

  /** An invocation's budget: the platform's limits, for `ms` from now. */
  const budgetFor = (ms: number) => createInvocationBudget(limits, now() + ms, now);

  /**
   * Whether the housekeeping is due: this instance's own time first, then the deployment's, kept
   * in KV (counted in the budget) for instances that live one request. An unreadable KV says due.
   */
  async function housekeepingDue(budget: InvocationBudget): Promise<boolean> {
    if (now() < housekeepingDueAt) return false;
    if (budget.kvLeft() < 1) return true;
    const kv = budget.meterKv(deps.kv);
    const dueAt = Number(
      await withDeadline(() => kv.get(HOUSEKEEPING_DUE_KEY), DEFAULT_KV_TIMEOUT_MS).catch(() => null),
    );
    if (dueAt > now()) housekeepingDueAt = dueAt;
    return now() >= housekeepingDueAt;
  }

  /** Records when the housekeeping is next due, for this instance and (best effort) the deployment. */
  async function housekeepingDoneUntil(dueAt: number, budget: InvocationBudget): Promise<void> {
    housekeepingDueAt = dueAt;
    if (budget.kvLeft() < 1) return;
    const kv = budget.meterKv(deps.kv);
    const ttlSeconds = Math.max(LEASE_TTL_SECONDS, Math.ceil((dueAt - now()) / 1000));
    await withDeadline(() => kv.put(HOUSEKEEPING_DUE_KEY, String(dueAt), { ttlSeconds }), DEFAULT_KV_TIMEOUT_MS).catch(
      () => undefined, // then the next instance runs it again: only some statements lost
    );
  }

  /**
   * Before the drain, so a drain that never catches up still lets the feed be pruned; it takes
   * at most a share of the drain's time, and a run that did not finish goes on in the next drain.
   */
  async function housekeep(budget: InvocationBudget): Promise<HousekeepingReport | undefined> {
    if (!(await housekeepingDue(budget))) return undefined;
    try {
      const share = budget.within(
        budget.timeLeft() * HOUSEKEEPING_SHARE,
        Math.floor(budget.sqlLeft() * HOUSEKEEPING_SHARE) || 1,
      );
      const report = await removeExpired(deps.sql, { retentionSeconds, budget: share });
      if (report.done) await housekeepingDoneUntil(now() + HOUSEKEEPING_INTERVAL_MS, budget);
      else housekeepingDueAt = now();
      if (report.prunedChanges + report.expiredKeys > 0) logger.log("info", "housekeeping", { ...report });
      return report;
    } catch (error) {
      // Only the tables' size depends on it: the next interval tries again.
      housekeepingDueAt = now() + HOUSEKEEPING_INTERVAL_MS;
      logger.log("warn", "housekeeping_failed", { error: errorMessage(error) });
      return undefined;
    }
  }

  function drainWithin(budget: InvocationBudget): Promise<DrainReport> {
    // Any drain counts for drainIfDue: a request that drained (the sync route) has spent the
    // invocation's budget, and the drain after its response would spend it a second time.
    checkedAt = now();
    running ??= (async () => {
      await housekeep(budget);
      return drainLinkChanges(deps.sql, deps.kv, { batchSize: options.batchSize, budget, logger });
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  /** One drain now (within one invocation's budget), or the one already running. */
  const drain = (): Promise<DrainReport> => drainWithin(budgetFor(drainTimeMs));

  /** A drain that starts after this call, so it covers every change committed before it. */
  async function drainFromNow(): Promise<DrainReport> {
    await running;
    return drain();
  }

  /**
   * For platforms without a scheduler (after a response): a drain when this deployment's lease in
   * KV has run out, at most once per interval per instance and, the store permitting, per
   * deployment. Two instances that both take the lease only drain twice, which is harmless.
   */
  async function drainIfDue(): Promise<DrainReport | undefined> {
    const at = now();
    if (at - checkedAt < intervalMs) return undefined;
    checkedAt = at;
    try {
      const lease = await withDeadline(() => deps.kv.get(SYNC_LEASE_KEY), DEFAULT_KV_TIMEOUT_MS);
      if (lease !== null && Number(lease) > at) return undefined;
      await withDeadline(
        () => deps.kv.put(SYNC_LEASE_KEY, String(at + intervalMs), { ttlSeconds: LEASE_TTL_SECONDS }),
        DEFAULT_KV_TIMEOUT_MS,
      );
    } catch (error) {
      logger.log("warn", "link_sync_failed", { error: errorMessage(error), changes: 0 });
      return undefined;
    }
    return drain();
  }

  /**
   * For schedulers coarser than the interval (a cron each minute), as one invocation: drains for
   * `periodMs`, back to back while a backlog lasts, then every interval; all of them within one
   * budget of the platform's limits.
   */
  async function runFor(periodMs: number): Promise<void> {
    const end = now() + periodMs;
    const budget = budgetFor(periodMs);
    for (;;) {
      const report = await drainWithin(budget);
      if (report.outOf === "budget" || now() >= end) return;
      if (report.outOf === "time") continue;
      if (now() + intervalMs >= end) return;
      await sleep(intervalMs);
    }
  }

  /** A request's share of the platform's limits, for other bounded work (resync). */
  const invocationBudget = () => budgetFor(drainTimeMs);

  return { drain, drainFromNow, drainIfDue, runFor, intervalMs, invocationBudget };
}
