// The cleanup of expired Idempotency-Keys, one background job per capability that stores them:
// bounded batches, about once a minute per deployment. Each capability's statement removes (or
// clears) a key by its row, or by tenant, caller and key: never another caller's key of that name.
import { type BackgroundJob, inBatches } from "../background/job.ts";
import type { Sql } from "../ports/sql.ts";

/**
 * One batch of a cleanup of expired keys (`DOCUMENT_KEYS_EXPIRY`, `ASSET_KEYS_EXPIRY`): one
 * statement that frees at most `limit` of them, skipping rows another cleanup or a creator holds,
 * and counts them as `expired`. Answers that count.
 */
export async function expireKeys(sql: Sql, statement: string, limit: number): Promise<number> {
  const [row] = await sql.query(statement, [String(limit)]);
  return Number(row?.expired ?? 0);
}

/** The job `name` (`<capability>/expire-idempotency-keys`) that runs `statement` in batches. */
export const keyExpiryJob = (name: string, statement: string): BackgroundJob => ({
  name,
  cadence: "every-minute",
  run: (context) => inBatches(context, (sql, limit) => expireKeys(sql, statement, limit)),
});
