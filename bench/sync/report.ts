// What `npm run bench:sync` writes to sync.md: one row per runtime, each named as the bench's
// tables name it.
import type { RuntimeName } from "../../dev/launchers/index.ts";
import { commandLine } from "../lib/cli.ts";
import { localTarget } from "../load/platform.ts";

export interface SyncResult {
  runtime: RuntimeName;
  /** Sync calls (invocations) until the one that answered caughtUp. */
  calls: number;
  /** Of the stale entries, how many a lookup no longer found in the KV once the sync caught up. */
  removed: number;
  /** From the first sync call to the one that answered caughtUp. */
  caughtUpMs: number;
  changesPerSecond: number;
  /** Until no change older than the retention was left. */
  prunedMs: number | null;
  left: { total: number; pastRetention: number };
}

/** The backlog a run seeds, as its options give it. */
export interface SyncOptions {
  changes: number;
  stale: number;
  old: number;
}

/** sync.json: the options and each runtime's result, named as the tables name it beside the runtime started. */
export function syncJson(results: readonly SyncResult[], opts: SyncOptions): string {
  const named = results.map(({ runtime, ...rest }) => ({ runtime, target: localTarget(runtime).target, ...rest }));
  return `${JSON.stringify({ options: opts, results: named }, null, 2)}\n`;
}

export function syncMarkdown(
  results: readonly SyncResult[],
  opts: SyncOptions,
  machine: string,
  databaseDescription: string,
): string {
  const rows = results.map(
    (r) =>
      `| ${localTarget(r.runtime).target} | ${r.calls} | ${(r.caughtUpMs / 1000).toFixed(1)} s | ${r.changesPerSecond} | ${r.removed} of ${opts.stale} | ${r.prunedMs === null ? "not yet" : `${(r.prunedMs / 1000).toFixed(1)} s`} | ${r.left.total} / ${r.left.pastRetention} |`,
  );
  return [
    "# Syncing a backlog of the link change feed",
    "",
    `Command: \`${commandLine("bench:sync")}\` (database: ${databaseDescription}) on ${machine}: a backlog of ${opts.changes} changes (${opts.stale} naming cached entries whose links are gone) and ${opts.old} changes past the retention, synced by one deployment through \`POST /v1/admin/links/sync\` (one invocation per call).`,
    "",
    "| runtime | sync calls to catch up | caught up after | changes/s | stale entries removed | past retention pruned after | rows left / past retention |",
    "| ------- | ---------------------- | --------------- | --------- | --------------------- | --------------------------- | -------------------------- |",
    ...rows,
    "",
  ].join("\n");
}
