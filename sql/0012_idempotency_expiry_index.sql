-- migrate: no-transaction
-- The housekeeping finds expired keys by their expiry, and keys without one (written before 0011)
-- by their document's creation: both are ranges of this index. Built CONCURRENTLY, so writes to
-- documents go on while it builds; which cannot happen inside a transaction (dev/migrate.ts).
CREATE INDEX CONCURRENTLY IF NOT EXISTS documents_idempotency_expiry_key
  ON documents (idempotency_expires_at, created_at)
  WHERE idempotency_key IS NOT NULL;
