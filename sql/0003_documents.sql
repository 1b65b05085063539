-- Documents: gapless per-tenant numbers. One counter row per tenant, locked while a number is
-- allocated, so creators of one tenant queue on it and tenants never wait on each other.
-- A rolled-back insert rolls its increment back too: no gap.
CREATE TABLE document_sequences (
  tenant_id   text   PRIMARY KEY,
  last_number bigint NOT NULL
);

CREATE TABLE documents (
  id                  uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id           text        NOT NULL,
  doc_number          bigint      NOT NULL,
  contract_id         text        NOT NULL,
  title               text,
  idempotency_key     text,
  request_fingerprint text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT documents_tenant_number_key UNIQUE (tenant_id, doc_number),
  CONSTRAINT documents_tenant_idempotency_key_key UNIQUE (tenant_id, idempotency_key),
  CONSTRAINT documents_fingerprint_with_key
    CHECK ((idempotency_key IS NULL) = (request_fingerprint IS NULL))
);

-- Numbers the row in the statement that inserts it. A BEFORE INSERT trigger runs before any
-- ON CONFLICT check, so a replayed Idempotency-Key is detected here, under the tenant's lock,
-- and skipped (RETURN NULL) before a number is taken.
CREATE FUNCTION documents_allocate_number() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last bigint;
BEGIN
  -- Creates the counter on first use and locks it; concurrent creators wait here.
  INSERT INTO document_sequences AS s (tenant_id, last_number) VALUES (NEW.tenant_id, 0)
  ON CONFLICT (tenant_id) DO UPDATE SET last_number = s.last_number
  RETURNING s.last_number INTO last;

  -- Under the lock, and with a fresh snapshot (READ COMMITTED), a concurrent first use of the
  -- same key has either committed (seen here) or rolled back.
  IF NEW.idempotency_key IS NOT NULL AND EXISTS (
    SELECT 1 FROM documents d
    WHERE d.tenant_id = NEW.tenant_id AND d.idempotency_key = NEW.idempotency_key
  ) THEN
    RETURN NULL;
  END IF;

  UPDATE document_sequences SET last_number = last + 1 WHERE tenant_id = NEW.tenant_id;
  NEW.doc_number := last + 1;
  RETURN NEW;
END;
$$;

CREATE TRIGGER documents_allocate_number
  BEFORE INSERT ON documents
  FOR EACH ROW EXECUTE FUNCTION documents_allocate_number();
