// Makes one tenant's KV cache entries agree with its links in Postgres, in bounded batches: one KV list page or one keyset
// page of the table at a time, each checked with one SQL round trip and KV calls a few at a time, as the sync makes
// them (sync.ts): each call's deadline starts when it is issued, so one queued behind the platform's connection
// limit would time out though it lands. A call does what the invocation's budget (invocation-budget.ts: Workers
// allow 1,000 KV operations) and time allow, and answers where it stopped: `next`, from which the following call
// goes on, until `next` is null.
import * as v from "valibot";
import { createInvocationBudget, type InvocationBudget } from "../background/invocation-budget.ts";
import { numeralsUpTo, publishedAs } from "../http/validation.ts";
import { mapBounded } from "../lib/map-bounded.ts";
import type { Sql } from "../ports/sql.ts";
import type { LinkCache } from "./cache.ts";
import { linkKey, targetText } from "./kv-keys.ts";
import { type Link, type LinkTarget, sameLink } from "./link.ts";
import { findLinks, pageLinks } from "./repository.ts";
import { KV_CONCURRENCY } from "./sync.ts";

export const DEFAULT_RESYNC_BATCH_SIZE = 100;
const DEFAULT_RESYNC_TIME_MS = 30_000;

export interface ResyncCounts {
  /** Entries written because they were missing, stale or different from Postgres. */
  written: number;
  /** Entries removed because their link is gone (or they could not be read). */
  removed: number;
  /** Entries that already agreed with Postgres. */
  unchanged: number;
  /** KV writes (puts and deletes) that failed or timed out; a later resync retries them. */
  failed: number;
}

export interface ResyncChunk extends ResyncCounts {
  /** Where the next call goes on (`?after=`); null once the whole tenant is done. */
  next: string | null;
}

/** First the cached entries (a KV listing), then the table (keyset by target, after `after`). */
type ResyncPosition = { phase: "cache"; cursor?: string } | { phase: "links"; after?: LinkTarget };

// Opaque to clients; a KV store's own cursor is opaque text of its own. In the table, the last
// link written (`db:<provider>/<externalAccountId>`; a provider has no "/"), or its start, `db:0`.
const PROVIDER = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";
// Any text but control characters, as the ids are (a position need not name a link that exists);
// 256 code points at most: up to 512 UTF-16 units.
const ACCOUNT = "[^\\u0000-\\u001f\\u007f-\\u009f]{1,512}";
/** `db:` and a number, as a release before gave it: the start of the table, where the ids it named are gone. */
const FORMER_ID = numeralsUpTo(2n ** 63n - 1n);
const POSITION_PATTERN = `^(?:kv:([\\s\\S]{0,2048})|db:(${FORMER_ID})|db:(${PROVIDER})/(${ACCOUNT}))$`;
const POSITION = new RegExp(POSITION_PATTERN);
const LONE_SURROGATE = /\p{Cs}/u;

export function parseResyncPosition(text: string): ResyncPosition | undefined {
  const match = text.match(POSITION);
  if (!match) return undefined;
  const [, kvCursor, formerId, provider, externalAccountId] = match;
  if (formerId !== undefined) return { phase: "links" };
  if (provider === undefined) return kvCursor ? { phase: "cache", cursor: kvCursor } : { phase: "cache" };
  // A lone surrogate cannot be sent to Postgres: like printable's, that part of the check stays prose.
  if (LONE_SURROGATE.test(externalAccountId!)) return undefined;
  return { phase: "links", after: { provider: provider.toLowerCase(), externalAccountId: externalAccountId! } };
}

/** `?after=`: a previous answer's `next`. */
export const ResyncQuerySchema = v.object({
  after: v.optional(
    v.pipe(
      v.string(),
      // What POSITION accepts, as the OpenAPI document says it.
      publishedAs(
        { type: "string", pattern: POSITION_PATTERN },
        v.rawTransform<string, ResyncPosition>(({ dataset, addIssue, NEVER }) => {
          const position = parseResyncPosition(dataset.value);
          if (position) return position;
          addIssue({ message: "must be the `next` of a previous resync answer" });
          return NEVER;
        }),
      ),
    ),
  ),
});

function positionText(at: ResyncPosition): string {
  if (at.phase === "cache") return `kv:${at.cursor ?? ""}`;
  return at.after ? `db:${at.after.provider}/${at.after.externalAccountId}` : "db:0";
}

interface ResyncOptions {
  batchSize?: number;
  now?: () => number;
  /** What this call may spend; by default unlimited store operations for 30 s. */
  budget?: InvocationBudget;
  /** A previous call's `next`; the start by default. */
  from?: ResyncPosition;
}

/** A page of n may need a listing, n reads and n writes or deletes (KV), and one statement. */
function pageSizeWithin(budget: InvocationBudget, batchSize: number): number {
  if (budget.sqlLeft() < 1 || budget.timeLeft() <= 0) return 0;
  return Math.max(0, Math.min(batchSize, Math.floor((budget.kvLeft() - 1) / 2)));
}

/** `cache` must be over `budget.meterKv(kv)` when the budget limits KV operations. */
export async function resyncLinkCache(sql: Sql, cache: LinkCache, options: ResyncOptions = {}): Promise<ResyncChunk> {
  const counts: ResyncCounts = { written: 0, removed: 0, unchanged: 0, failed: 0 };
  const batchSize = options.batchSize ?? DEFAULT_RESYNC_BATCH_SIZE;
  const budget = options.budget ?? createInvocationBudget({}, Date.now() + DEFAULT_RESYNC_TIME_MS);
  const metered = budget.meterSql(sql);
  const now = options.now ?? (() => Date.now());
  let at: ResyncPosition | undefined = options.from ?? { phase: "cache" };
  while (at) {
    const size = pageSizeWithin(budget, batchSize);
    if (size === 0) return { ...counts, next: positionText(at) };
    const next: ResyncPosition | undefined | "unlisted" =
      at.phase === "cache"
        ? await removeOrphans(metered, cache, at.cursor, size, counts)
        : await writeLinks(metered, cache, at.after, size, now, counts);
    // Without the listing the cache cannot be checked: the call stops where it is, and its `next`
    // asks the following one to list it again. Nothing was written, so nothing `failed`.
    if (next === "unlisted") return { ...counts, next: positionText(at) };
    at = next;
  }
  return { ...counts, next: null };
}

/** KV → Postgres: deletes the entries of one listing page whose link no longer exists. */
async function removeOrphans(
  sql: Sql,
  cache: LinkCache,
  cursor: string | undefined,
  size: number,
  counts: ResyncCounts,
): Promise<ResyncPosition | "unlisted"> {
  const page = await cache.listEntries(cursor, size);
  if (!page.ok) return "unlisted";
  const doomed = await orphans(sql, cache, page.value.keys);
  for (const deleted of await mapBounded(doomed, KV_CONCURRENCY, (key) => cache.deleteEntry(key))) {
    if (deleted) counts.removed++;
    else counts.failed++;
  }
  return page.value.cursor === undefined ? { phase: "links" } : { phase: "cache", cursor: page.value.cursor };
}

/**
 * The keys among `keys` to delete: unreadable (a failed read included: the entry is a copy, and
 * a miss is never a wrong answer), misfiled, or naming a link Postgres lacks.
 */
async function orphans(sql: Sql, cache: LinkCache, keys: string[]): Promise<string[]> {
  const doomed: string[] = [];
  const filed: { key: string; link: Link }[] = [];
  await mapBounded(keys, KV_CONCURRENCY, async (key) => {
    const read = await cache.readEntry(key);
    if (read.state === "failed" || read.state === "unreadable") doomed.push(key);
    // An entry under a key its own tenant and link do not hash to is corrupt: never served, removed.
    else if (read.state === "present") {
      if (await cache.isFiled(key, read.entry)) filed.push({ key, link: read.entry.link });
      else doomed.push(key);
    }
  });
  const live = new Set(
    (
      await findLinks(
        sql,
        cache.tenantId,
        filed.map((entry) => entry.link),
      )
    ).map(targetText),
  );
  return [...doomed, ...filed.filter((entry) => !live.has(targetText(entry.link))).map((entry) => entry.key)];
}

/** Postgres → KV: writes every link of one keyset page whose entry is missing, stale or different. */
async function writeLinks(
  sql: Sql,
  cache: LinkCache,
  after: LinkTarget | undefined,
  size: number,
  now: () => number,
  counts: ResyncCounts,
): Promise<ResyncPosition | undefined> {
  const readAt = now(); // before the read, as the staleness bound requires
  const page = await pageLinks(sql, cache.tenantId, after, size);
  await mapBounded(page.links, KV_CONCURRENCY, async (link) => {
    const key = await linkKey(cache.tenantId, link);
    const read = await cache.readEntry(key);
    if (read.state === "present" && cache.isFresh(read.entry) && sameLink(read.entry.link, link)) {
      counts.unchanged++;
    } else if (await cache.writeEntry(key, link, readAt)) {
      counts.written++;
    } else {
      counts.failed++;
    }
  });
  return page.next === undefined ? undefined : { phase: "links", after: page.next };
}
