// The links capability's background jobs: the sync of the change feed into this deployment's KV
// cache on every run, and pruning the feed of changes past its retention about once a minute.
import { type BackgroundJob, inBatches, type JobContext, type JobOutcome } from "../background/job.ts";
import { pruneChanges } from "./changes.ts";
import { type SyncReport, syncLinkCache } from "./sync.ts";

/** The feed keeps changes at least this long (or the cache lifetime and the margin, when longer). */
const MIN_CHANGE_RETENTION_SECONDS = 3600;
/**
 * Kept beyond the cache lifetime: a change's `changed_at` is when its statement began, and a
 * lookup may read the link while that statement still waits (on a lock, up to its 5 s), so an
 * entry it made stale can be read a little after it and live that much longer; the edges' clocks,
 * which date the entries, may run ahead of the database's.
 */
const CHANGE_RETENTION_MARGIN_SECONDS = 300;

export type SyncOutcome = SyncReport & JobOutcome;

export const linkSyncJob: BackgroundJob<SyncOutcome> = {
  name: "links/sync",
  cadence: "every-run",
  async run({ sql, kv, budget, logger, batchSize, settings }: JobContext) {
    const ttlSeconds = settings.linkCacheTtlSeconds;
    const report = await syncLinkCache(sql, kv, { budget, logger, batchSize, ttlSeconds });
    return { ...report, done: report.caughtUp };
  },
};

/**
 * A cached entry lives LINK_CACHE_TTL_SECONDS: the feed keeps the changes that long and a margin
 * more, so a sync that resumes within it still finds every change behind an entry it may hold.
 */
export const pruneLinkChangesJob: BackgroundJob = {
  name: "links/prune-changes",
  cadence: "every-minute",
  run(context: JobContext) {
    const ttl = context.settings.linkCacheTtlSeconds;
    const retention = Math.max(ttl + CHANGE_RETENTION_MARGIN_SECONDS, MIN_CHANGE_RETENTION_SECONDS);
    return inBatches(context, (sql, limit) => pruneChanges(sql, retention, limit));
  },
};

export const LINK_JOBS: readonly BackgroundJob[] = [linkSyncJob, pruneLinkChangesJob];
