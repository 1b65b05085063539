-- migrate: no-transaction
-- Idempotency-Keys belong to the caller: its tenant and its subject (the token's `sub`), for
-- documents and assets, so one user's `order-7` never answers another's with 422 or replays the
-- first user's creation as the second's own. The expand step: each key row names its caller, and
-- a unique index per caller is built beside the tenant's (0015 swaps them).
--
-- '' is the caller of the keys stored before this, or by the release before it while it still
-- runs: it knew no callers (a token's `sub` is never empty). Such a key goes on naming its
-- request for every caller of its tenant, as it did, until it expires (IDEMPOTENCY_KEY_TTL_SECONDS).
--
-- Online: a column with a constant default changes only the catalog (each ALTER waits at most
-- the migration's lock timeout, then is retried); the indexes are built CONCURRENTLY, writes
-- going on meanwhile. Every statement is safe to run again.
ALTER TABLE documents ADD COLUMN IF NOT EXISTS idempotency_subject text NOT NULL DEFAULT '';
ALTER TABLE asset_idempotency_keys ADD COLUMN IF NOT EXISTS subject_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS documents_caller_idempotency_key
  ON documents (tenant_id, idempotency_subject, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS asset_idempotency_keys_caller_key
  ON asset_idempotency_keys (tenant_id, subject_id, idempotency_key);
