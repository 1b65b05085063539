-- The contract step of 0014: a key is unique per caller (tenant, subject), no longer per tenant.
--
-- A key is taken for a caller when a live row holds it for that caller, or for '' (a key stored
-- before callers, which every caller of its tenant shares until it expires).
--
-- One transaction; its exclusive locks are taken for catalog changes only (the indexes exist,
-- nothing is scanned): writes wait at most the lock timeout (then the migration is retried).
-- Last of the files: from this commit on, the release before it fails keyed asset creations (its
-- ON CONFLICT names the tenant's key, which no index holds any more) and may answer a keyed
-- document another caller's; deploy the release with callers right after migrating
-- (docs/deploy.md), as for 0013.
CREATE FUNCTION documents_key_taken(tenant text, subject text, key text) RETURNS boolean LANGUAGE sql AS $$
  SELECT EXISTS (
    SELECT 1 FROM documents
    WHERE tenant_id = tenant AND idempotency_subject IN (subject, '') AND idempotency_key = key
      AND documents_key_live(idempotency_expires_at, created_at)
  )
$$;

-- As in 0011, for the caller: under the tenant's lock, the caller's expired holder of the key
-- gives it up, so the new document can take it.
CREATE OR REPLACE FUNCTION documents_allocate_number() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  taken bigint;
BEGIN
  IF NEW.idempotency_key IS NOT NULL
     AND documents_key_taken(NEW.tenant_id, NEW.idempotency_subject, NEW.idempotency_key) THEN
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
    WHERE tenant_id = NEW.tenant_id AND idempotency_subject = NEW.idempotency_subject
      AND idempotency_key = NEW.idempotency_key
      AND NOT documents_key_live(idempotency_expires_at, created_at);
    IF documents_key_taken(NEW.tenant_id, NEW.idempotency_subject, NEW.idempotency_key) THEN
      UPDATE document_sequences SET last_number = last_number - 1 WHERE tenant_id = NEW.tenant_id;
      RETURN NULL;
    END IF;
  END IF;

  NEW.doc_number := taken;
  RETURN NEW;
END;
$$;

DROP FUNCTION documents_key_taken(text, text);
DROP INDEX documents_tenant_idempotency_key;

ALTER TABLE asset_idempotency_keys
  DROP CONSTRAINT asset_idempotency_keys_pkey,
  ADD CONSTRAINT asset_idempotency_keys_pkey PRIMARY KEY USING INDEX asset_idempotency_keys_caller_key;
