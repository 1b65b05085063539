// Drains the change feed (changes.ts) into this deployment's KV cache: every entry named by a
// change since the cursor is deleted unless it already equals the link in Postgres (read after the
// change committed: the deployment's own write-back of that very change stays), then the cursor,
// kept in the same KV, moves on. Each page is one feed read, parallel KV reads, one statement for
// the links of the entries found, and parallel deletes; a drain reads at most `maxBatches` pages. A drain that
// fails anywhere leaves the cursor where it was, so the next one retries the same changes (deletes
// are idempotent); the entries' own TTL stays the backstop. The entries only trigger it.
import { consoleLogger, errorMessage, type Logger, silentLogger } from "../log.ts";
import type { KvCache } from "../ports/kv.ts";
import type { Sql } from "../ports/sql.ts";
import type { Settings } from "../settings.ts";
import { DEFAULT_KV_TIMEOUT_MS, decodeEntry, withDeadline } from "./cache.ts";
import { FEED_START, type LinkChange, pruneChanges, readChanges } from "./changes.ts";
import { linkKey } from "./keys.ts";
import { sameLink } from "./link.ts";
import { findLinksAcrossTenants } from "./repository.ts";

/** Outside `links/v2/`, so no listing of cached links ever sees them. */
export const SYNC_CURSOR_KEY = "links/sync/cursor";
export const SYNC_LEASE_KEY = "links/sync/lease";

const DEFAULT_SYNC_BATCH_SIZE = 100;
const DEFAULT_SYNC_MAX_BATCHES = 10;
/** The feed keeps changes at least this long (or the cache lifetime, when longer). */
const MIN_CHANGE_RETENTION_SECONDS = 3600;
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
}

interface DrainOptions {
  batchSize?: number;
  maxBatches?: number;
  retentionSeconds: number;
  kvTimeoutMs?: number;
  logger?: Logger;
}

export async function drainLinkChanges(sql: Sql, kv: KvCache, options: DrainOptions): Promise<DrainReport> {
  const { batchSize = DEFAULT_SYNC_BATCH_SIZE, maxBatches = DEFAULT_SYNC_MAX_BATCHES, logger = silentLogger } = options;
  const timeoutMs = options.kvTimeoutMs ?? DEFAULT_KV_TIMEOUT_MS;
  const report: DrainReport = { changes: 0, removedByTenant: {}, caughtUp: false, failed: false };
  const kvCall = <T>(call: () => Promise<T>) => withDeadline(call, timeoutMs);
  try {
    let cursor = (await kvCall(() => kv.get(SYNC_CURSOR_KEY))) ?? FEED_START;
    for (let batch = 0; batch < maxBatches && !report.caughtUp; batch++) {
      const page = await readChanges(sql, cursor, batchSize);
      const stale = await staleEntries(sql, kv, page.changes, kvCall);
      await Promise.all(stale.map(({ key }) => kvCall(() => kv.delete(key))));
      if (page.next !== cursor)
        await kvCall(() => kv.put(SYNC_CURSOR_KEY, page.next, { ttlSeconds: CURSOR_TTL_SECONDS }));
      cursor = page.next;
      report.changes += page.changes.length;
      for (const { tenantId } of stale) report.removedByTenant[tenantId] = (report.removedByTenant[tenantId] ?? 0) + 1;
      report.caughtUp = !page.more;
    }
  } catch (error) {
    report.failed = true;
    logger.log("warn", "link_sync_failed", { error: errorMessage(error), changes: report.changes });
    return report;
  }
  // Only a feed that grew needs pruning: an idle drain costs one statement, not two.
  if (report.caughtUp && report.changes > 0) await prune(sql, options.retentionSeconds, logger);
  if (report.changes > 0) logger.log("info", "link_sync", { changes: report.changes, caughtUp: report.caughtUp });
  return report;
}

interface NamedEntry extends LinkChange {
  key: string;
  text: string | null;
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
  const entries: NamedEntry[] = await Promise.all(
    [...named].map(async ([key, change]) => ({ ...change, key, text: await kvCall(() => kv.get(key)) })),
  );
  const cached = entries.filter((entry) => entry.text !== null);
  const current = new Map<string, Awaited<ReturnType<typeof findLinksAcrossTenants>>[number]>();
  for (const link of await findLinksAcrossTenants(sql, cached)) current.set(await linkKey(link.tenantId, link), link);
  return cached.filter(({ key, tenantId, text }) => {
    const entry = decodeEntry(text!);
    const link = current.get(key);
    return !(entry && link && entry.tenantId === tenantId && sameLink(entry.link, link));
  });
}

async function prune(sql: Sql, retentionSeconds: number, logger: Logger) {
  try {
    await pruneChanges(sql, retentionSeconds);
  } catch (error) {
    // Only the feed's size depends on it; the next drain prunes again.
    logger.log("warn", "link_sync_prune_failed", { error: errorMessage(error) });
  }
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
  maxBatches?: number;
}

export type LinkSync = ReturnType<typeof createLinkSync>;

/** The three ways a platform triggers a drain; one drain at a time per instance. */
export function createLinkSync(deps: LinkSyncDeps, options: LinkSyncOptions = {}) {
  const { now = () => Date.now(), sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms)) } = options;
  const intervalMs = deps.settings.linkSyncIntervalSeconds * 1000;
  const retentionSeconds = Math.max(deps.settings.linkCacheTtlSeconds, MIN_CHANGE_RETENTION_SECONDS);
  const logger = deps.logger ?? consoleLogger;
  let running: Promise<DrainReport> | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;

  /** One drain now, or the one already running. */
  function drain(): Promise<DrainReport> {
    running ??= drainLinkChanges(deps.sql, deps.kv, { ...options, retentionSeconds, logger }).finally(() => {
      running = undefined;
    });
    return running;
  }

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

  /** For schedulers coarser than the interval (a cron each minute): a drain every interval for `periodMs`. */
  async function runFor(periodMs: number): Promise<void> {
    const end = now() + periodMs;
    for (;;) {
      await drain();
      if (now() + intervalMs >= end) return;
      await sleep(intervalMs);
    }
  }

  return { drain, drainFromNow, drainIfDue, runFor, intervalMs };
}
