// POST /v1/assets with an Idempotency-Key: one statement claims the key and inserts the asset
// (see sql/0008_asset_idempotency_keys.sql). The asset is inserted only from the claim, so a
// key already claimed creates nothing; the second branch then answers the stored first answer.
// Both branches read one snapshot: a first use of the key committed while this statement waited
// on the key's index entry is not seen here, and is read in a second round trip (a read).
import type { Sql } from "../ports/sql.ts";
import type { Asset, AssetFields } from "./model.ts";
import { toAsset } from "./repository.ts";

interface Idempotency {
  key: string;
  fingerprint: string;
}

export type CreateOnceResult =
  | { outcome: "created" | "replayed"; asset: Asset }
  /** The key already names a request with another body; nothing was written. */
  | { outcome: "key_reused" };

const CREATE_ONCE = `
  WITH fresh AS (SELECT replace(gen_random_uuid()::text, '-', '') AS etag, now() AS at),
  claimed AS (
    INSERT INTO asset_idempotency_keys
      (tenant_id, idempotency_key, request_fingerprint, asset_id, name, material, etag, updated_at)
    SELECT $1, $5, $6, $2, $3, $4, fresh.etag, fresh.at FROM fresh
    ON CONFLICT (tenant_id, idempotency_key) DO NOTHING
    RETURNING asset_id
  ),
  inserted AS (
    INSERT INTO assets (tenant_id, id, name, material, etag, created_at, updated_at)
    SELECT $1, $2, $3, $4, fresh.etag, fresh.at, fresh.at FROM fresh, claimed
    RETURNING id, name, material, status, etag, updated_at
  )
  SELECT inserted.*, $6 AS request_fingerprint, true AS created FROM inserted
  UNION ALL
  SELECT asset_id, name, material, 'draft', etag, updated_at, request_fingerprint, false
    FROM asset_idempotency_keys
   WHERE tenant_id = $1 AND idempotency_key = $5 AND NOT EXISTS (SELECT 1 FROM claimed)`;

const BY_KEY = `
  SELECT asset_id AS id, name, material, 'draft' AS status, etag, updated_at, request_fingerprint
    FROM asset_idempotency_keys WHERE tenant_id = $1 AND idempotency_key = $2`;

/** Creates the asset `id`, or answers the creation its Idempotency-Key already names. */
export async function createAssetOnce(
  sql: Sql,
  tenantId: string,
  id: string,
  fields: AssetFields,
  { key, fingerprint }: Idempotency,
): Promise<CreateOnceResult> {
  const [row] = await sql.query(CREATE_ONCE, [tenantId, id, fields.name, fields.material, key, fingerprint]);
  if (row?.created === true) return { outcome: "created", asset: toAsset(row) };
  // Only when a concurrent first use of the key committed after this statement's snapshot.
  const stored = row ?? (await sql.query(BY_KEY, [tenantId, key]))[0];
  if (!stored) throw new Error("the asset insert was skipped for a key that no request holds");
  if (stored.request_fingerprint !== fingerprint) return { outcome: "key_reused" };
  return { outcome: "replayed", asset: toAsset(stored) };
}
