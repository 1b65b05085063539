// How a create with an Idempotency-Key ends, for every capability that takes one. Its one
// statement either creates (and the key then names the new row) or, when the caller's live key
// already names a request, answers the stored one from the same snapshot. A first use of the key
// that committed after that snapshot is not in it: the stored request is then read again.
import type { Row } from "../ports/sql.ts";

export type Settled =
  | { outcome: "created" | "replayed"; row: Row }
  /** The key already names a request with another body; nothing was written. */
  | { outcome: "key_reused" };

/**
 * `row`: what the statement answered (a created row has `created` true; a stored one carries
 * its `request_fingerprint`). `readStored` reads the caller's live key in a round trip of its own.
 */
export async function settleKeyedCreate(
  row: Row | undefined,
  fingerprint: string,
  readStored: () => Promise<Row | undefined>,
): Promise<Settled> {
  if (row?.created === true) return { outcome: "created", row };
  const stored = row ?? (await readStored());
  if (!stored) throw new Error("a keyed create was skipped for a key that no request holds");
  if (stored.request_fingerprint !== fingerprint) return { outcome: "key_reused" };
  return { outcome: "replayed", row: stored };
}
