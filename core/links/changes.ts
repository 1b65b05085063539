// The change feed of links in Postgres (sql/0007_link_changes.sql), read in (txid, id) order and
// only below the reading snapshot's xmin: every transaction older than that horizon has ended, so
// no change can commit behind a cursor that never passes it. One statement per page.
import type { Sql } from "../ports/sql.ts";
import type { LinkTarget } from "./link.ts";

export interface LinkChange extends LinkTarget {
  tenantId: string;
}

/** A change as read from the feed: `recent` when it is younger than the reader asked about. */
export interface FeedChange extends LinkChange {
  recent?: true;
}

/** Where a reader stands in the feed: "txid:id", both decimal. The start is "0:0". */
export type FeedCursor = string;
export const FEED_START: FeedCursor = "0:0";

interface ChangePage {
  changes: FeedChange[];
  /** Where the next read starts: past these changes and, once caught up, at the horizon. */
  next: FeedCursor;
  /** Whether the page was full: more changes may be waiting below the horizon. */
  more: boolean;
  /** The cursor lies beyond the horizon: no read of this feed gave it out, and it reads nothing. */
  ahead: boolean;
}

// The LEFT JOIN keeps one row even when nothing is new, so the horizon always comes back.
// `recent`: changed less than $4 seconds ago, by the database's clock (changed_at is when the
// change's transaction began).
const PAGE = `
SELECT h.horizon::text AS horizon, c.txid::text AS txid, c.id::text AS id,
       c.tenant_id, c.provider, c.external_account_id, c.recent
FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon) AS h
LEFT JOIN LATERAL (
  SELECT txid, id, tenant_id, provider, external_account_id,
         ($4::float8 > 0 AND changed_at > now() - make_interval(secs => $4::float8)) AS recent
  FROM link_changes
  WHERE (txid, id) > ($1::xid8, $2::bigint) AND txid < h.horizon
  ORDER BY txid, id
  LIMIT $3
) AS c ON true
ORDER BY c.txid, c.id`;

// The oldest rows first, at most $2 per statement: each batch is its own short transaction, so
// pruning a large backlog never holds row locks (or a snapshot) for long.
const PRUNE = `
WITH pruned AS (
  DELETE FROM link_changes WHERE id IN (
    SELECT id FROM link_changes WHERE changed_at < now() - make_interval(secs => $1::float8)
    ORDER BY changed_at LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  RETURNING 1
)
SELECT count(*)::int AS pruned FROM pruned`;

const CURSOR = /^(\d{1,20}):(\d{1,19})$/;
/** The largest xid8 (unsigned) and bigint (signed) Postgres takes: past them a read would fail. */
const MAX_TXID = 2n ** 64n - 1n;
const MAX_ID = 2n ** 63n - 1n;

/** The cursor `text` names, or undefined when it is none this feed could give out (garbled, overflowing). */
export function parseFeedCursor(text: string): { txid: bigint; id: bigint } | undefined {
  const match = text.match(CURSOR);
  if (!match) return undefined;
  const [txid, id] = [BigInt(match[1]!), BigInt(match[2]!)];
  return txid <= MAX_TXID && id <= MAX_ID ? { txid, id } : undefined;
}

/**
 * Up to `limit` changes after `cursor` that no transaction still in flight can precede, those
 * changed less than `recentSeconds` ago marked `recent`. A cursor past the horizon (one no read
 * gave out: planted, or of another database) reads as `ahead`.
 */
export async function readChanges(sql: Sql, cursor: FeedCursor, limit: number, recentSeconds = 0): Promise<ChangePage> {
  const from = parseFeedCursor(cursor);
  if (!from) throw new Error("the feed cursor is unreadable");
  const rows = await sql.query(PAGE, [String(from.txid), String(from.id), String(limit), String(recentSeconds)]);
  const horizon = BigInt(String(rows[0]?.horizon ?? "0"));
  // Honest cursors are a change below the horizon or the horizon itself ("h:0"), never past it.
  if (from.txid > horizon || (from.txid === horizon && from.id > 0n)) {
    return { changes: [], next: cursor, more: false, ahead: true };
  }
  const found = rows.filter((row) => row.txid !== null);
  const changes = found.map(
    (row): FeedChange => ({
      tenantId: String(row.tenant_id),
      provider: String(row.provider),
      externalAccountId: String(row.external_account_id),
      ...(row.recent === true && { recent: true }),
    }),
  );
  const last = found.at(-1);
  if (found.length === limit && last)
    return { changes, next: `${String(last.txid)}:${String(last.id)}`, more: true, ahead: false };
  // Caught up: everything below the horizon has been read, later changes all lie at or above it.
  const next = horizon > from.txid ? `${horizon}:0` : last ? `${String(last.txid)}:${String(last.id)}` : cursor;
  return { changes, next, more: false, ahead: false };
}

/** Deletes up to `limit` changes older than `retentionSeconds`, oldest first; answers how many. */
export async function pruneChanges(sql: Sql, retentionSeconds: number, limit: number): Promise<number> {
  const [row] = await sql.query(PRUNE, [String(retentionSeconds), String(limit)]);
  return Number(row?.pruned ?? 0);
}
