-- Idempotency keys expire (IDEMPOTENCY_KEY_TTL_SECONDS, default 24 h): kept forever they cost
-- about 190 MB per million keyed creates. A key stops naming its document at
-- idempotency_expires_at, which the app sets at creation; a reuse after that creates a new
-- document. Expired keys are cleared from their documents in bounded batches by the periodic
-- housekeeping (core/housekeeping.ts), through the index of 0012; until then they are ignored, so
-- expiry is exact.
--
-- Online: a nullable column without a default changes only the catalog. Rows written before this
-- migration, or by the previous release while it is still running, carry no expiry: their keys
-- expire 24 h after their document was created.
ALTER TABLE documents ADD COLUMN idempotency_expires_at timestamptz;

CREATE FUNCTION documents_key_live(expires_at timestamptz, created_at timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT coalesce(expires_at, created_at + interval '86400 seconds') > now()
$$;

-- A key counts only while it lives.
CREATE OR REPLACE FUNCTION documents_key_taken(tenant text, key text) RETURNS boolean LANGUAGE sql AS $$
  SELECT EXISTS (
    SELECT 1 FROM documents
    WHERE tenant_id = tenant AND idempotency_key = key
      AND documents_key_live(idempotency_expires_at, created_at)
  )
$$;

-- As in 0005, plus: under the tenant's lock, an expired holder of the key gives it up, so the new
-- document can take it (the key's unique index still allows one holder only). Concurrent reuses
-- of an expired key queue on that lock: the first creates, the others find its live key.
CREATE OR REPLACE FUNCTION documents_allocate_number() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  taken bigint;
BEGIN
  IF NEW.idempotency_key IS NOT NULL AND documents_key_taken(NEW.tenant_id, NEW.idempotency_key) THEN
    RETURN NULL;
  END IF;

  UPDATE document_sequences SET last_number = last_number + 1
  WHERE tenant_id = NEW.tenant_id
  RETURNING last_number INTO taken;
  IF NOT FOUND THEN
    INSERT INTO document_sequences AS s (tenant_id, last_number) VALUES (NEW.tenant_id, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET last_number = s.last_number + 1
    RETURNING s.last_number INTO taken;
  END IF;

  IF NEW.idempotency_key IS NOT NULL THEN
    UPDATE documents SET idempotency_key = NULL, request_fingerprint = NULL, idempotency_expires_at = NULL
    WHERE tenant_id = NEW.tenant_id AND idempotency_key = NEW.idempotency_key
      AND NOT documents_key_live(idempotency_expires_at, created_at);
    IF documents_key_taken(NEW.tenant_id, NEW.idempotency_key) THEN
      UPDATE document_sequences SET last_number = last_number - 1 WHERE tenant_id = NEW.tenant_id;
      RETURN NULL;
    END IF;
  END IF;

  NEW.doc_number := taken;
  RETURN NEW;
END;
$$;
