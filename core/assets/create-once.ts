// POST /v1/assets with an Idempotency-Key: one statement claims the caller's key and inserts the
// asset (see sql/0008_asset_idempotency_keys.sql; keys are the caller's since sql/0014). The
// asset is inserted only from the claim, so a key already claimed creates nothing; the second
// branch then answers the stored first answer.
// Both branches read one snapshot: a first use of the key committed while this statement waited
// on the key's index entry is not seen here, and is read in a second round trip (a read).
import type { Caller, KeyedRequest } from "../idempotency/key.ts";
import { createOnce } from "../idempotency/settle.ts";
import type { Sql } from "../ports/sql.ts";
import type { Asset, AssetFields } from "./model.ts";
import { toAsset } from "./repository.ts";

export type CreateOnceResult =
  | { outcome: "created" | "replayed"; asset: Asset }
  /** The key already names a request with another body; nothing was written. */
  | { outcome: "key_reused" };

// The caller's live key row, or a live one stored before keys had callers (subject '', sql/0014:
// every caller's of the tenant until it expires); the caller's own first. An expired row names
// nothing: read in the statement's snapshot, it may be one a concurrent reuse has just claimed anew.
const callersKey = (columns: string, tenant: string, subject: string, key: string) => `
  SELECT ${columns} FROM asset_idempotency_keys
   WHERE tenant_id = ${tenant} AND subject_id IN (${subject}, '') AND idempotency_key = ${key}
     AND expires_at > now()
   ORDER BY subject_id DESC LIMIT 1`;

const CREATE_ONCE = `
  WITH fresh AS (SELECT replace(gen_random_uuid()::text, '-', '') AS etag, now() AS at),
  claimed AS (
    INSERT INTO asset_idempotency_keys
      (tenant_id, subject_id, idempotency_key, request_fingerprint, asset_id, name, material, etag, updated_at, expires_at)
    SELECT $1, $8, $5, $6, $2, $3, $4, fresh.etag, fresh.at, fresh.at + make_interval(secs => $7::int) FROM fresh
     WHERE NOT EXISTS (
       SELECT 1 FROM asset_idempotency_keys
        WHERE tenant_id = $1 AND subject_id = '' AND idempotency_key = $5 AND expires_at > now()
     )
    -- An expired key is claimed anew, as if it had never been used.
    ON CONFLICT (tenant_id, subject_id, idempotency_key) DO UPDATE SET
      request_fingerprint = EXCLUDED.request_fingerprint, asset_id = EXCLUDED.asset_id,
      name = EXCLUDED.name, material = EXCLUDED.material, etag = EXCLUDED.etag,
      updated_at = EXCLUDED.updated_at, created_at = EXCLUDED.updated_at, expires_at = EXCLUDED.expires_at
      WHERE asset_idempotency_keys.expires_at <= now()
    RETURNING asset_id
  ),
  inserted AS (
    INSERT INTO assets (tenant_id, id, name, material, etag, created_at, updated_at)
    SELECT $1, $2, $3, $4, fresh.etag, fresh.at, fresh.at FROM fresh, claimed
    RETURNING id, name, material, status, etag, updated_at
  )
  SELECT inserted.*, $6 AS request_fingerprint, true AS created FROM inserted
  UNION ALL
  SELECT * FROM (${callersKey("asset_id, name, material, 'draft', etag, updated_at, request_fingerprint, false", "$1", "$8", "$5")}) AS stored
   WHERE NOT EXISTS (SELECT 1 FROM claimed)`;

const BY_KEY = callersKey(
  "asset_id AS id, name, material, 'draft' AS status, etag, updated_at, request_fingerprint",
  "$1",
  "$2",
  "$3",
);

/** Creates the asset `id`, or answers the creation the caller's Idempotency-Key already names. */
export async function createAssetOnce(
  sql: Sql,
  { tenantId, subject }: Caller,
  id: string,
  fields: AssetFields,
  { key, fingerprint, ttlSeconds }: KeyedRequest,
): Promise<CreateOnceResult> {
  const params = [tenantId, id, fields.name, fields.material, key, fingerprint, String(ttlSeconds), subject];
  const attempt = async () => (await sql.query(CREATE_ONCE, params))[0];
  const readStored = async () => (await sql.query(BY_KEY, [tenantId, subject, key]))[0];
  const settled = await createOnce(attempt, fingerprint, readStored);
  return settled.outcome === "key_reused" ? settled : { outcome: settled.outcome, asset: toAsset(settled.row) };
}

/**
 * Expired asset Idempotency-Keys, oldest first, at most $1 per statement (expireKeys). Each is
 * removed by its caller and key: another caller's key of the same name is another row, and lives on.
 */
export const ASSET_KEYS_EXPIRY = `
  WITH expired AS (
    SELECT tenant_id, subject_id, idempotency_key FROM asset_idempotency_keys
     WHERE expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
  ), removed AS (
    DELETE FROM asset_idempotency_keys k USING expired
     WHERE k.tenant_id = expired.tenant_id AND k.subject_id = expired.subject_id
       AND k.idempotency_key = expired.idempotency_key AND k.expires_at <= now()
    RETURNING 1
  )
  SELECT count(*)::int AS expired FROM removed`;
