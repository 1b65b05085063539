// Syncs the change feed (changes.ts) into this deployment's KV cache: every entry named by a change
// since the cursor is deleted unless it already equals the link in Postgres (read after the change
// committed: the deployment's own write-back of that very change stays), then the cursor, kept in
// the same KV, moves on. Each page is one feed read, the KV reads of the entries named (bulk reads
// where the store has them: on Workers one operation per 100 keys), one statement for the links of
// the entries found, and the deletes (and, for recent changes, puts). A sync goes on until it
// caught up, its time is up, or the invocation's store operations (invocation-budget.ts) would not
// cover another page; the next one resumes at the cursor, saved at most once a second and where a
// sync stops.
// A sync that fails anywhere saves the cursor of the last page fully applied when it can (else
// the last one saved stays), so the next one retries the changes after it (deletes and rewrites
// are idempotent); the entries' own TTL stays the backstop. The entries only trigger it.
// Where the store's reads lag writes made elsewhere (KvCache.readLagMs: Workers KV's locations
// remember what they read, an absence too, for 60 s), a read tells nothing of a change younger
// than that lag: another location may have filled the entry, or written another copy, after this
// one last read it. For those, an entry read absent is deleted all the same and one read equal to
// Postgres is written again from Postgres; older changes are judged by what is read, as above.
// The cursor sits in a store others can write: one that is unreadable (garbled, overflowing
// Postgres' types) or past the feed's horizon (no read gave it out) is discarded with a warning,
// and the sync starts again at the feed's start, as with a lost cursor. Not at the horizon: the
// changes between the true cursor and the horizon would be skipped, and a replay only deletes
// entries or writes them again from Postgres.
// When syncs run is the background runner's (core/background/runner.ts, core/links/jobs.ts).
import { createInvocationBudget, type InvocationBudget } from "../background/invocation-budget.ts";
import { withDeadline } from "../lib/deadline.ts";
import { mapBounded } from "../lib/map-bounded.ts";
import { errorMessage, type Logger, silentLogger } from "../log.ts";
import { DEFAULT_KV_TIMEOUT_MS, KV_GET_MANY_MAX, type KvCache } from "../ports/kv.ts";
import type { Sql } from "../ports/sql.ts";
import { decodeEntry, encodeEntry, entryLifetimeSeconds } from "./cache.ts";
import { FEED_START, type FeedChange, type FeedCursor, parseFeedCursor, readChanges } from "./changes.ts";
import { linkKey } from "./kv-keys.ts";
import { type Link, sameLink } from "./link.ts";
import { DEFAULT_LINK_CACHE_TTL_SECONDS } from "./link-settings.ts";
import { findLinksAcrossTenants } from "./repository.ts";

/** Outside `links/v2/`, so no listing of cached links ever sees them. */
export const SYNC_CURSOR_KEY = "links/sync/cursor";

const DEFAULT_SYNC_BATCH_SIZE = 100;
/** A sync stops starting pages after this long; the next one resumes at its cursor. */
export const DEFAULT_SYNC_TIME_MS = 30_000;
/** A lost cursor restarts the sync at the feed's start: harmless, a replay only deletes or writes from Postgres. */
const CURSOR_TTL_SECONDS = 7 * 24 * 3600;
/**
 * Added to a store's read lag to tell a recent change: a change's `changed_at` is when its
 * statement began, up to a statement's 5 s (statement_timeout) before it committed, and Workers
 * KV's regional tiers drop an overwritten key within seconds more.
 */
const RECENT_MARGIN_MS = 10_000;

export interface SyncReport {
  /** Changes read from the feed and applied. */
  changes: number;
  /** Entries read as stale and deleted, per tenant (not the deletes of recent changes' entries read absent). */
  removedByTenant: Record<string, number>;
  /** Whether the sync reached the horizon (and saved its cursor there). */
  caughtUp: boolean;
  /** Whether it stopped at a failure, leaving the cursor at the last batch fully applied. */
  failed: boolean;
  /** What it stopped at, when it failed: a caller that answers for the sync answers with it. */
  failure?: unknown;
  /** What ended a sync that neither caught up nor failed; the next sync resumes at the cursor. */
  outOf?: "time" | "budget";
}

interface SyncOptions {
  batchSize?: number;
  /** LINK_CACHE_TTL_SECONDS: the lifetime of an entry the sync writes again. */
  ttlSeconds?: number;
  now?: () => number;
  /** What the invocation may spend; by default unlimited operations for DEFAULT_SYNC_TIME_MS. */
  budget?: InvocationBudget;
  kvTimeoutMs?: number;
  logger?: Logger;
}

/** A page's deletes and puts in flight at once: Workers queue an invocation's calls beyond six anyway. */
export const KV_CONCURRENCY = 6;
/**
 * Workers KV takes at most one write a second to a key: the cursor is saved that often while a
 * sync runs, and where it ends. A sync that fails replays at most that much (deletes and puts from Postgres).
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

export async function syncLinkCache(sql: Sql, kv: KvCache, options: SyncOptions = {}): Promise<SyncReport> {
  const { batchSize = DEFAULT_SYNC_BATCH_SIZE, logger = silentLogger, now = () => Date.now() } = options;
  const ttlMs = (options.ttlSeconds ?? DEFAULT_LINK_CACHE_TTL_SECONDS) * 1000;
  const budget = options.budget ?? createInvocationBudget({}, Date.now() + DEFAULT_SYNC_TIME_MS);
  const [meteredSql, meteredKv] = [budget.meterSql(sql), budget.meterKv(kv)];
  const bulk = meteredKv.getMany !== undefined;
  // Younger than this, a change's entries are not judged by what this location reads.
  const lagMs = meteredKv.readLagMs ?? 0;
  const recentSeconds = lagMs > 0 ? (lagMs + RECENT_MARGIN_MS) / 1000 : 0;
  const timeoutMs = options.kvTimeoutMs ?? DEFAULT_KV_TIMEOUT_MS;
  const report: SyncReport = { changes: 0, removedByTenant: {}, caughtUp: false, failed: false };
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
    saved = (await kvCall(() => meteredKv.get(SYNC_CURSOR_KEY))) ?? FEED_START;
    cursor = usableCursor(saved, logger); // a discarded one differs from `saved`: it is overwritten
    while (!report.caughtUp) {
      const size = pageSizeWithin(budget, batchSize, bulk);
      if (size === 0 || budget.timeLeft() <= 0) {
        report.outOf = size === 0 ? "budget" : "time";
        break;
      }
      const page = await readChanges(meteredSql, cursor, size, recentSeconds);
      if (page.ahead) {
        discarded(logger, "ahead of the feed's horizon");
        cursor = FEED_START;
        continue;
      }
      const actions = await entryActions(meteredSql, meteredKv, page.changes, { kvCall, ttlMs, now });
      await mapBounded(actions, KV_CONCURRENCY, ({ key, put }) =>
        kvCall(() => (put ? meteredKv.put(key, put.value, { ttlSeconds: put.ttlSeconds }) : meteredKv.delete(key))),
      );
      cursor = page.next;
      report.changes += page.changes.length;
      for (const { tenantId, stale } of actions)
        if (stale) report.removedByTenant[tenantId] = (report.removedByTenant[tenantId] ?? 0) + 1;
      report.caughtUp = !page.more;
      if (savedWhenLeft - budget.timeLeft() >= CURSOR_SAVE_INTERVAL_MS) await saveCursor();
    }
    await saveCursor(); // its put was counted in every page's cost
  } catch (error) {
    // What was applied stays applied: a cursor saved now spares the next sync replaying it.
    if (saved !== null) await saveCursor().catch(() => undefined);
    logger.log("warn", "link_sync_failed", { error: errorMessage(error), changes: report.changes });
    return { ...report, failed: true, caughtUp: false, failure: error };
  }
  if (report.changes > 0) logger.log("info", "link_sync", { changes: report.changes, caughtUp: report.caughtUp });
  return report;
}

/** Where a sync starts: the stored cursor, or the feed's start when it is unreadable. */
function usableCursor(stored: string, logger: Logger): FeedCursor {
  if (parseFeedCursor(stored)) return stored;
  discarded(logger, "unreadable");
  return FEED_START;
}

/** One line per discarded cursor; never its text, which anyone who writes the store chose. */
const discarded = (logger: Logger, why: string) =>
  logger.log("warn", "link_sync_cursor_discarded", { reason: why, restartAt: FEED_START });

/** What a page does to one entry it names: a delete, or a put of the link Postgres holds. */
interface EntryAction {
  key: string;
  tenantId: string;
  put?: { value: string; ttlSeconds: number };
  /** Read as differing from Postgres (or unreadable) and deleted: what `removedByTenant` counts. */
  stale: boolean;
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

/**
 * What to do to the entries `changes` name: delete each one read that differs from Postgres now
 * (or cannot be read). For a recent change (younger than the store's read lag), what was read
 * may be this location's memory of an older state, while another location filled the entry since:
 * an entry read absent is deleted all the same, and one read equal to Postgres is written again
 * from Postgres (so the deployment's own write-back stays a hit).
 */
async function entryActions(
  sql: Sql,
  kv: KvCache,
  changes: readonly FeedChange[],
  { kvCall, ttlMs, now }: { kvCall: <T>(call: () => Promise<T>) => Promise<T>; ttlMs: number; now: () => number },
): Promise<EntryAction[]> {
  const named = new Map<string, FeedChange>(); // each key once, recent when any of its changes is
  for (const change of changes) {
    const key = await linkKey(change.tenantId, change);
    named.set(key, named.get(key)?.recent ? { ...change, recent: true } : change);
  }
  const texts = await readEntries(kv, [...named.keys()], kvCall);
  const entries = [...named].map(([key, change], i) => ({ ...change, key, text: texts[i] ?? null }));
  const cached = entries.filter((entry) => entry.text !== null);
  const readAt = now(); // before the read of the links, as an entry's readAt must be
  const current = new Map<string, Link>();
  for (const { tenantId, ...link } of await findLinksAcrossTenants(sql, cached))
    current.set(await linkKey(tenantId, link), link);
  const actions: EntryAction[] = [];
  for (const { key, tenantId, text, recent } of entries) {
    if (text === null) {
      if (recent) actions.push({ key, tenantId, stale: false });
      continue;
    }
    const entry = decodeEntry(text);
    const link = current.get(key);
    if (!(entry && link && entry.tenantId === tenantId && sameLink(entry.link, link))) {
      actions.push({ key, tenantId, stale: true });
    } else if (recent) {
      const ttlSeconds = entryLifetimeSeconds(readAt, ttlMs, now());
      const put = ttlSeconds === undefined ? undefined : { value: encodeEntry(tenantId, link, readAt), ttlSeconds };
      actions.push({ key, tenantId, stale: false, ...(put && { put }) });
    }
  }
  return actions;
}
