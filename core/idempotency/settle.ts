// How a create with an Idempotency-Key ends, for every capability that takes one. Its one
// statement either creates (and the key then names the new row) or, when the caller's live key
// already names a request, answers the stored one from the same snapshot. A first use of the key
// that committed after that snapshot is not in it: the stored request is then read again.
import type { Row } from "../ports/sql.ts";

export type Settled =
  | { outcome: "created" | "replayed"; row: Row }
  /** The key already names a request with another body; nothing was written. */
  | { outcome: "key_reused" };

// Each further attempt needs a key that expired within one round trip again: two are plenty.
const ATTEMPTS = 3;

/**
 * `attempt` runs the capability's statement and answers its row (a created row has `created`
 * true; a stored one carries its `request_fingerprint`). `readStored` reads the caller's live key
 * in a round trip of its own. When even that finds nothing, the key the statement met expired
 * (and may have been cleaned up) in between: it is free, and the statement, which wrote nothing,
 * runs again as a use of the key after its expiry.
 */
export async function createOnce(
  attempt: () => Promise<Row | undefined>,
  fingerprint: string,
  readStored: () => Promise<Row | undefined>,
): Promise<Settled> {
  for (let attempts = 0; attempts < ATTEMPTS; attempts++) {
    const row = await attempt();
    if (row?.created === true) return { outcome: "created", row };
    const stored = row ?? (await readStored());
    if (stored)
      return stored.request_fingerprint === fingerprint
        ? { outcome: "replayed", row: stored }
        : { outcome: "key_reused" };
  }
  throw new Error(`a keyed create met a key that no request held, ${ATTEMPTS} times`);
}
