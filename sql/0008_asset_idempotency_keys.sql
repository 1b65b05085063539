-- POST /v1/assets honours Idempotency-Key as POST /v1/documents does: a retry with the same key
-- and body answers the first 201 again and creates nothing; the same key with another body is
-- refused; concurrent first uses create one asset.
--
-- The key is claimed here, in its own table, by the same statement that inserts the asset
-- (core/assets/create-once.ts): the asset is inserted only from the claim's RETURNING, so of two
-- first uses only the one whose claim went in creates anything. The row keeps the 201 as it was
-- first answered, so a retry gets that answer even after the asset changed or was deleted (its
-- ETag then no longer matches, as for any client holding an old version).
--
-- expires_at ends the key (IDEMPOTENCY_KEY_TTL_SECONDS after its first use, as for documents): a
-- later use of the key claims it anew, and the cleanup finds expired keys by its index.
CREATE TABLE asset_idempotency_keys (
  tenant_id           text        NOT NULL,
  idempotency_key     text        NOT NULL,
  request_fingerprint text        NOT NULL,
  asset_id            text        NOT NULL,
  name                text        NOT NULL,
  material            text        NOT NULL,
  etag                text        NOT NULL,
  updated_at          timestamptz NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  expires_at          timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, idempotency_key)
);

CREATE INDEX asset_idempotency_keys_expires_at ON asset_idempotency_keys (expires_at);
