// The KV read cache of links: best-effort and bounded in staleness.
//
// Best-effort: every KV call has a deadline and a catch; a failure is logged and reads as a miss
// (or a skipped write). The request it belongs to succeeds regardless.
//
// Bounded staleness: an entry carries `readAt`, a time no later than the Postgres snapshot it was
// copied from (taken before the query was sent). The link existed at that snapshot, so it ended
// after `readAt`; an entry trusted only until `readAt + TTL` therefore never outlives its link by
// more than the TTL, even when a lookup's write-back lands after a concurrent unlink removed the
// entry and the lookup could not remove it itself (write-back.ts). Readers enforce that limit
// themselves; the store's own expiry (at least 60 s, Workers KV's floor, which could otherwise
// exceed the remaining lifetime) only collects the garbage.
// The store is written by more than this service, so `readAt` is only a claim: an entry read
// "in the future" of the reader's clock is not fresh at all (with no leeway: honest writers take
// `readAt` before their read, and a reader whose clock lags only misses and reads Postgres),
// and so no entry, whatever it claims, is served longer than the TTL after the reader's clock
// passed its `readAt`.
import * as v from "valibot";
import { withDeadline } from "../lib/deadline.ts";
import { parseJsonOrUndefined } from "../lib/json.ts";
import { RecentMap } from "../lib/recent-map.ts";
import { errorMessage, type Logger } from "../log.ts";
import { DEFAULT_KV_TIMEOUT_MS, type KvCache, type KvListPage, MIN_KV_TTL_SECONDS } from "../ports/kv.ts";
import { linkKey, tenantKeyPrefix } from "./kv-keys.ts";
import { type Link, type LinkTarget, sameTarget } from "./link.ts";

interface LinkCacheOptions {
  /** Every key, entry and listing of this cache belongs to this tenant. */
  tenantId: string;
  ttlSeconds: number;
  logger: Logger;
  /** Deadline of each KV call; a store that hangs costs a request at most this long per call. */
  timeoutMs?: number;
  now?: () => number;
}

export interface CacheEntry {
  /** The tenant the link belongs to: an entry answers no other tenant's lookup. */
  tenantId: string;
  link: Link;
  /** Epoch milliseconds, taken before the Postgres read the link came from. */
  readAt: number;
}

type EntryRead =
  | { state: "present"; entry: CacheEntry }
  | { state: "absent" }
  | { state: "unreadable" }
  | { state: "failed" };

/** A put sent to the store: when its call ended, however, which may be after its deadline. */
export interface PutSent {
  ended: Promise<void>;
}

type Attempt<T> = { ok: true; value: T } | { ok: false };

const EntrySchema = v.object({
  tenantId: v.string(),
  link: v.object({
    provider: v.string(),
    externalAccountId: v.string(),
    userId: v.string(),
    displayName: v.nullable(v.string()),
    linkedAt: v.string(),
  }),
  readAt: v.pipe(v.number(), v.finite()),
});

export type LinkCache = ReturnType<typeof createLinkCache>;

export function createLinkCache(kv: KvCache, options: LinkCacheOptions) {
  const { tenantId, logger, timeoutMs = DEFAULT_KV_TIMEOUT_MS, now = () => Date.now() } = options;
  const prefix = tenantKeyPrefix(tenantId);
  const ttlMs = options.ttlSeconds * 1000;

  // Logged by operation and tenant, never by key: a key is the SHA-256 of the provider and the
  // external id (often an e-mail address), which anyone holding a candidate can compute.
  async function attempt<T>(operation: string, call: () => Promise<T>): Promise<Attempt<T>> {
    try {
      return { ok: true, value: await withDeadline(call, timeoutMs) };
    } catch (error) {
      logger.log("warn", "link_cache_failed", { operation, tenantId, error: errorMessage(error) });
      return { ok: false };
    }
  }

  /** Read no later than now, and less than the TTL ago. */
  const isFresh = (entry: CacheEntry) => {
    const age = now() - entry.readAt;
    return age >= 0 && age < ttlMs;
  };

  async function readEntry(key: string): Promise<EntryRead> {
    const got = await attempt("get", () => kv.get(key));
    if (!got.ok) return { state: "failed" };
    if (got.value === null) return { state: "absent" };
    const entry = decodeRecentEntry(got.value);
    if (entry) return { state: "present", entry };
    logger.log("warn", "link_cache_unreadable", { tenantId });
    return { state: "unreadable" };
  }

  /**
   * Caches `link` as read at `readAt`; false when its lifetime is already over or KV failed.
   * `started` is handed the store's own call, which may go on after its deadline.
   */
  async function writeEntry(
    key: string,
    link: Link,
    readAt: number,
    started?: (put: Promise<void>) => void,
  ): Promise<boolean> {
    const ttlSeconds = entryLifetimeSeconds(readAt, ttlMs, now());
    if (ttlSeconds === undefined) return false;
    const value = encodeEntry(tenantId, link, readAt);
    const put = () => {
      const call = kv.put(key, value, { ttlSeconds });
      started?.(call);
      return call;
    };
    return (await attempt("put", put)).ok;
  }

  const deleteEntry = async (key: string) => (await attempt("delete", () => kv.delete(key))).ok;

  // Only keys under the prefix, whatever the store lists: a resync deletes every listed key that is
  // not this tenant's entry, and the store's cursor, which the admin hands back, may lead anywhere.
  const listEntries = async (cursor: string | undefined, limit: number): Promise<Attempt<KvListPage>> => {
    const listed = await attempt("list", () => kv.list(prefix, cursor === undefined ? { limit } : { cursor, limit }));
    if (!listed.ok) return listed;
    return { ok: true, value: { ...listed.value, keys: listed.value.keys.filter((key) => key.startsWith(prefix)) } };
  };

  /** Whether `entry`, found under `key`, is this tenant's and filed where its link belongs. */
  const isFiled = async (key: string, entry: CacheEntry) =>
    entry.tenantId === tenantId && (await linkKey(tenantId, entry.link)) === key;

  return {
    isFresh,
    readEntry,
    writeEntry,
    deleteEntry,
    listEntries,
    isFiled,
    tenantId,

    /** The cached link of `target` when one is fresh; undefined on a miss of any kind. */
    async read(target: LinkTarget): Promise<Link | undefined> {
      const read = await readEntry(await linkKey(tenantId, target));
      if (read.state !== "present") return undefined;
      const { entry } = read;
      return entry.tenantId === tenantId && sameTarget(entry.link, target) && isFresh(entry) ? entry.link : undefined;
    },

    async write(link: Link, readAt: number): Promise<boolean> {
      return writeEntry(await linkKey(tenantId, link), link, readAt);
    },

    /**
     * Writes `link` as `write` does, and tells when the store's call ended, which may be after its
     * deadline (a put that timed out may still land): undefined when nothing was sent.
     */
    async writeBack(link: Link, readAt: number): Promise<PutSent | undefined> {
      let ended: Promise<void> | undefined;
      const started = (put: Promise<void>) => {
        ended = put.then(
          () => undefined,
          () => undefined,
        );
      };
      await writeEntry(await linkKey(tenantId, link), link, readAt, started);
      return ended && { ended };
    },

    async remove(target: LinkTarget): Promise<boolean> {
      return deleteEntry(await linkKey(tenantId, target));
    },
  };
}

/** The stored text of `link`, of `tenantId`, read at `readAt`. */
export const encodeEntry = (tenantId: string, link: Link, readAt: number): string =>
  JSON.stringify({ tenantId, link, readAt } satisfies CacheEntry);

/**
 * The store's lifetime for an entry read at `readAt` (epoch ms) with `ttlMs` to live, at `now`:
 * what is left of it, but never below the store's floor (readers enforce the rest); undefined
 * when nothing is left.
 */
export function entryLifetimeSeconds(readAt: number, ttlMs: number, now: number): number | undefined {
  const remainingMs = readAt + ttlMs - now;
  return remainingMs <= 0 ? undefined : Math.max(MIN_KV_TTL_SECONDS, Math.ceil(remainingMs / 1000));
}

export function decodeEntry(text: string): CacheEntry | undefined {
  const parsed = v.safeParse(EntrySchema, parseJsonOrUndefined(text));
  return parsed.success ? parsed.output : undefined;
}

// The entries of the links looked up most recently, by their text: a link looked up again costs
// no parse and no schema check (most of a cached lookup's own work). The same text is the same
// entry, so what it answers is unchanged; its freshness is judged on every read. Bounded; the
// oldest is forgotten first. Frozen, as every request that reads the text shares it.
const recentEntries = new RecentMap<string, CacheEntry>(1024);

function decodeRecentEntry(text: string): CacheEntry | undefined {
  let entry = recentEntries.get(text);
  if (entry === undefined) {
    entry = decodeEntry(text);
    if (entry === undefined) return undefined;
    Object.freeze(entry.link);
    recentEntries.set(text, Object.freeze(entry));
  }
  return entry;
}
