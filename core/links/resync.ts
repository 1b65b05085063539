// Makes one tenant's KV cache entries agree with its links in Postgres, in bounded batches: one KV list page or one keyset
// page of the table at a time, each checked with one SQL round trip and parallel KV calls.
import type { Sql } from "../ports/sql.ts";
import type { LinkCache } from "./cache.ts";
import { linkKey, targetText } from "./keys.ts";
import { type Link, sameLink } from "./link.ts";
import { findLinks, pageLinks } from "./repository.ts";

export const DEFAULT_RESYNC_BATCH_SIZE = 100;

export interface ResyncCounts {
  /** Entries written because they were missing, stale or different from Postgres. */
  written: number;
  /** Entries removed because their link is gone (or they could not be read). */
  removed: number;
  /** Entries that already agreed with Postgres. */
  unchanged: number;
  /** KV calls that failed or timed out; a later resync retries them. */
  failed: number;
}

interface ResyncOptions {
  batchSize?: number;
  now?: () => number;
}

export async function resyncLinkCache(sql: Sql, cache: LinkCache, options: ResyncOptions = {}): Promise<ResyncCounts> {
  const counts: ResyncCounts = { written: 0, removed: 0, unchanged: 0, failed: 0 };
  const batchSize = options.batchSize ?? DEFAULT_RESYNC_BATCH_SIZE;
  await removeOrphans(sql, cache, batchSize, counts);
  await writeLinks(sql, cache, batchSize, options.now ?? (() => Date.now()), counts);
  return counts;
}

/** KV → Postgres: deletes every entry whose link no longer exists. */
async function removeOrphans(sql: Sql, cache: LinkCache, batchSize: number, counts: ResyncCounts) {
  let cursor: string | undefined;
  do {
    const page = await cache.listEntries(cursor, batchSize);
    if (!page.ok) {
      counts.failed++; // without the cursor the listing cannot go on; the next resync will
      return;
    }
    const doomed = await orphans(sql, cache, page.value.keys, counts);
    for (const deleted of await Promise.all(doomed.map((key) => cache.deleteEntry(key)))) {
      if (deleted) counts.removed++;
      else counts.failed++;
    }
    cursor = page.value.cursor;
  } while (cursor !== undefined);
}

/** The keys among `keys` to delete: unreadable, misfiled, or naming a link Postgres lacks. */
async function orphans(sql: Sql, cache: LinkCache, keys: string[], counts: ResyncCounts): Promise<string[]> {
  const doomed: string[] = [];
  const filed: { key: string; link: Link }[] = [];
  await Promise.all(
    keys.map(async (key) => {
      const read = await cache.readEntry(key);
      if (read.state === "failed") counts.failed++;
      else if (read.state === "unreadable") doomed.push(key);
      // An entry under a key its own tenant and link do not hash to is corrupt: never served, removed.
      else if (read.state === "present") {
        if (await cache.isFiled(key, read.entry)) filed.push({ key, link: read.entry.link });
        else doomed.push(key);
      }
    }),
  );
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

/** Postgres → KV: writes every link whose entry is missing, stale or different. */
async function writeLinks(sql: Sql, cache: LinkCache, batchSize: number, now: () => number, counts: ResyncCounts) {
  let after: string | undefined = "0";
  while (after !== undefined) {
    const readAt = now(); // before the read, as the staleness bound requires
    const page = await pageLinks(sql, cache.tenantId, after, batchSize);
    await Promise.all(
      page.links.map(async (link) => {
        const key = await linkKey(cache.tenantId, link);
        const read = await cache.readEntry(key);
        if (read.state === "present" && cache.isFresh(read.entry) && sameLink(read.entry.link, link)) {
          counts.unchanged++;
        } else if (await cache.writeEntry(key, link, readAt)) {
          counts.written++;
        } else {
          counts.failed++;
        }
      }),
    );
    after = page.next;
  }
}
