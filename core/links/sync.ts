// Drains the change feed (changes.ts) into this deployment's KV cache: every entry named by a
// change since the cursor is deleted unless it already equals the link in Postgres (read after the
// change committed: the deployment's own write-back of that very change stays), then the cursor,
// kept in the same KV, moves on. Each page is one feed read, the KV reads of the entries named
// (bulk reads where the store has them: on Workers one operation per 100 keys), one statement for
// the links of the entries found, and the deletes. A drain goes on until it caught up, its time
// is up, or the invocation's store operations (invocation-budget.ts) would not cover another
// page; the next one resumes at the cursor, saved at most once a second and where a drain stops.
// A drain that fails anywhere saves the cursor of the last page fully applied when it can (else
// the last one saved stays), so the next one retries the changes after it (deletes are
// idempotent); the entries' own TTL stays the backstop. The entries only trigger it. Before
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
import { mapBounded } from "../lib/map-bounded.ts";
import { consoleLogger, errorMessage, type Logger, silentLogger } from "../log.ts";
import { KV_GET_MANY_MAX, type KvCache } from "../ports/kv.ts";
import type { Sql } from "../ports/sql.ts";
import type { Settings } from "../settings/settings.ts";
import { DEFAULT_KV_TIMEOUT_MS, decodeEntry } from "./cache.ts";
import { FEED_START, type LinkChange, readChanges } from "./changes.ts";
import { linkKey } from "./keys.ts";
import { sameLink } from "./link.ts";
import { findLinksAcrossTenants } from "./repository.ts";

/** Outside `links/v2/`, so no listing of cached links ever sees them. */
export const SYNC_CURSOR_KEY = "links/sync/cursor";
export const SYNC_LEASE_KEY = "links/sync/lease";
export const HOUSEKEEPING_DUE_KEY = "links/sync/housekeeping-due";

const DEFAULT_SYNC_BATCH_SIZE = 100;
/** A drain stops starting pages after this long; the next one resumes at its cursor. */
export const DEFAULT_DRAIN_TIME_MS = 30_000;
/** The feed keeps changes at least this long (or the cache lifetime, when longer). */
const MIN_CHANGE_RETENTION_SECONDS = 3600;
/** How often an instance removes expired rows, when the last run finished. */
const HOUSEKEEPING_INTERVAL_MS = 60_000;
/** The share of a drain's time and statements the housekeeping may take before the drain itself. */
const HOUSEKEEPING_SHARE = 0.25;
/** A lost cursor restarts the drain at the feed's start: harmless, only deletes are replayed. */
const CURSOR_TTL_SECONDS = 7 * 24 * 3600;
const LEASE_TTL_SECONDS = 60; // the store's floor; the lease's own time is in its value

interface DrainReport {
  /** Changes read from the feed and applied. */
  changes: number;
  /** KV entries deleted, per tenant. */
  removedByTenant: Record<string, number>;
  /** Whether the drain reached the horizon (and saved its cursor there). */
  caughtUp: boolean;
  /** Whether it stopped at a failure, leaving the cursor at the last batch fully applied. */
  failed: boolean;
  /** What ended a drain that neither caught up nor failed; the next drain resumes at the cursor. */
  outOf?: "time" | "budget";
}

interface DrainOptions {
  batchSize?: number;
  /** What the invocation may spend; by default unlimited operations for DEFAULT_DRAIN_TIME_MS. */
  budget?: InvocationBudget;
  kvTimeoutMs?: number;
  logger?: Logger;
}

/** A page's deletes in flight at once: Workers queue an invocation's calls beyond six anyway. */
const KV_CONCURRENCY = 6;
/**
 * Workers KV takes at most one write a second to a key: the cursor is saved that often while a
 * drain runs, and where it ends. A drain that fails replays at most that much (deletes only).
 */
const CURSOR_SAVE_INTERVAL_MS = 1_000;

/** KV reads of `size` keys: bulk reads of up to KV_GET_MANY_MAX where the store has them. */
const readsOf = (size: number, bulk: boolean) => (bulk ? Math.ceil(size / KV_GET_MANY_MAX) : size);

/**
 * Store operations a page of `size` changes may need at most: one feed read and one read of the
 * named links (SQL), and the reads of the named entries, a delete per change and the cursor's
 * put (KV).
 */
const pageCost = (size: number, bulk: boolean) => ({ sql: 2, kv: readsOf(size, bulk) + size + 1 });

/** The largest page the budget still covers, up to `batchSize`; 0 when none. */
function pageSizeWithin(budget: InvocationBudget, batchSize: number, bulk: boolean): number {
  if (budget.sqlLeft() < pageCost(1, bulk).sql) return 0;
  let size = Math.max(0, Math.min(batchSize, Math.floor(budget.kvLeft())));
  while (size > 0 && pageCost(size, bulk).kv > budget.kvLeft()) size--;
  return size;
}

export async function drainLinkChanges(sql: Sql, kv: KvCache, options: DrainOptions = {}): Promise<DrainReport> {
  const { batchSize = DEFAULT_SYNC_BATCH_SIZE, logger = silentLogger } = options;
  const budget = options.budget ?? createInvocationBudget({}, Date.now() + DEFAULT_DRAIN_TIME_MS);
  const [meteredSql, meteredKv] = [budget.meterSql(sql), budget.meterKv(kv)];
  const bulk = meteredKv.getMany !== undefined;
  const timeoutMs = options.kvTimeoutMs ?? DEFAULT_KV_TIMEOUT_MS;
  const report: DrainReport = { changes: 0, removedByTenant: {}, caughtUp: false, failed: false };
  const kvCall = <T>(call: () => Promise<T>) => withDeadline(call, timeoutMs);
  if (budget.kvLeft() < 1 + pageCost(1, bulk).kv) return { ...report, outOf: "budget" };
  let saved: string | null = null;
  let savedWhenLeft = budget.timeLeft();
  let cursor: string = FEED_START; // the last page fully applied
  const saveCursor = async () => {
    if (cursor === saved) return;
    const next = cursor;
    await kvCall(() => meteredKv.put(SYNC_CURSOR_KEY, next, { ttlSeconds: CURSOR_TTL_SECONDS }));
    [saved, savedWhenLeft] = [next, budget.timeLeft()];
  };
  try {
    cursor = saved = (await kvCall(() => meteredKv.get(SYNC_CURSOR_KEY))) ?? FEED_START;
    while (!report.caughtUp) {
      const size = pageSizeWithin(budget, batchSize, bulk);
      if (size === 0 || budget.timeLeft() <= 0) {
        report.outOf = size === 0 ? "budget" : "time";
        break;
      }
      const page = await readChanges(meteredSql, cursor, size);
      const stale = await staleEntries(meteredSql, meteredKv, page.changes, kvCall);
      await mapBounded(stale, KV_CONCURRENCY, ({ key }) => kvCall(() => meteredKv.delete(key)));
      cursor = page.next;
      report.changes += page.changes.length;
      for (const { tenantId } of stale) report.removedByTenant[tenantId] = (report.removedByTenant[tenantId] ?? 0) + 1;
      report.caughtUp = !page.more;
      if (savedWhenLeft - budget.timeLeft() >= CURSOR_SAVE_INTERVAL_MS) await saveCursor();
    }
    await saveCursor(); // its put was counted in every page's cost
  } catch (error) {
    // What was applied stays applied: a cursor saved now spares the next drain replaying it.
    if (saved !== null) await saveCursor().catch(() => undefined);
    logger.log("warn", "link_sync_failed", { error: errorMessage(error), changes: report.changes });
    return { ...report, failed: true, caughtUp: false };
  }
  if (report.changes > 0) logger.log("info", "link_sync", { changes: report.changes, caughtUp: report.caughtUp });
  return report;
}

interface NamedEntry extends LinkChange {
  key: string;
  text: string | null;
}

/**
 * The values of `keys` (a page's), in bulk reads where the store has them (Workers KV), else one
 * read per key, all at once as before: no platform here counts those stores' calls.
 */
async function readEntries(
  kv: KvCache,
  keys: readonly string[],
  kvCall: <T>(call: () => Promise<T>) => Promise<T>,
): Promise<(string | null)[]> {
  const { getMany } = kv;
  if (!getMany) return Promise.all(keys.map((key) => kvCall(() => kv.get(key))));
  const chunks: string[][] = [];
  for (let at = 0; at < keys.length; at += KV_GET_MANY_MAX) chunks.push(keys.slice(at, at + KV_GET_MANY_MAX));
  return (await mapBounded(chunks, KV_CONCURRENCY, (chunk) => kvCall(() => getMany.call(kv, chunk)))).flat();
}

/** The cached entries `changes` name that differ from Postgres now (or cannot be read). */
async function staleEntries(
  sql: Sql,
  kv: KvCache,
  changes: readonly LinkChange[],
  kvCall: <T>(call: () => Promise<T>) => Promise<T>,
): Promise<NamedEntry[]> {
  const named = new Map<string, LinkChange>(); // each key once
  for (const change of changes) named.set(await linkKey(change.tenantId, change), change);
  const texts = await readEntries(kv, [...named.keys()], kvCall);
  const entries: NamedEntry[] = [...named].map(([key, change], i) => ({ ...change, key, text: texts[i] ?? null }));
  const cached = entries.filter((entry) => entry.text !== null);
  const current = new Map<string, Awaited<ReturnType<typeof findLinksAcrossTenants>>[number]>();
  for (const link of await findLinksAcrossTenants(sql, cached)) current.set(await linkKey(link.tenantId, link), link);
  return cached.filter(({ key, tenantId, text }) => {
    const entry = decodeEntry(text!);
    const link = current.get(key);
    return !(entry && link && entry.tenantId === tenantId && sameLink(entry.link, link));
  });
}

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
