// A lookup's write-back, confirmed. A lookup that missed copies the link it read from Postgres
// into KV; a change (unlink, re-link, rename) committed after that read may be synced before the
// copy lands, which would leave the copy until its TTL. So once the put has ended, the link is read
// again and the copy deleted unless it still equals Postgres. A change committed before that read
// is seen by it; one committed after it is synced after the put ended, and the sync deletes the
// copy (docs/links.md, "A lookup's copy, confirmed").
import { errorMessage, type Logger } from "../log.ts";
import type { Sql } from "../ports/sql.ts";
import type { LinkCache } from "./cache.ts";
import { type Link, sameLink } from "./link.ts";
import { findLink } from "./repository.ts";

/** Workers KV refuses a write (a delete too) to a key written less than a second before. */
const KEY_WRITE_INTERVAL_MS = 1_000;

export interface WriteBackDeps {
  sql: Sql;
  cache: LinkCache;
  logger: Logger;
  /** Keeps work going after the answer (the platform's waitUntil, where there is one). */
  keepAlive: (work: Promise<void>) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Caches `link`, read from Postgres at `readAt`, and confirms the copy after the answer, once the
 * store's call has ended (a put that missed its deadline may still land): the answer waits for
 * neither the confirming read nor a delete retried a second later.
 */
export async function writeBackConfirmed(deps: WriteBackDeps, link: Link, readAt: number): Promise<void> {
  const put = await deps.cache.writeBack(link, readAt);
  if (put) deps.keepAlive(put.ended.then(() => removeUnlessCurrent(deps, link)));
}

/** Deletes the copy of `link` unless Postgres still holds it as it is; never throws. */
async function removeUnlessCurrent(deps: WriteBackDeps, link: Link): Promise<void> {
  const { sql, cache, logger, sleep = wait } = deps;
  let current: Link | undefined;
  try {
    current = await findLink(sql, cache.tenantId, link);
  } catch (error) {
    // The copy stays until the sync of a change or its TTL, as before any confirmation.
    logger.log("warn", "link_write_back_unconfirmed", { error: errorMessage(error) });
    return;
  }
  if (current && sameLink(current, link)) return;
  if (await cache.remove(link)) return;
  // Refused (Workers KV: the put was less than a second before) or failed: once more, a second on.
  await sleep(KEY_WRITE_INTERVAL_MS);
  await cache.remove(link);
}

const wait = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
