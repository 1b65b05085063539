-- Documents: the tenant's counter row is written once per number instead of twice.
--
-- sql/0003 took the tenant's lock with a no-op upsert and then wrote the increment: two row
-- versions (and their WAL) per number, both while every other creator of the tenant waits on
-- that row. Here the increment itself takes the lock, so the tenant's queue moves at the pace of
-- a bare `UPDATE … RETURNING` plus the document's own row.
--
-- The guarantees are unchanged:
-- - no gap, no duplicate: the row lock orders the creators of a tenant, and the increment and
--   the insert commit or roll back together;
-- - a replayed Idempotency-Key allocates nothing: it is found before the counter is touched;
-- - concurrent first uses of a key allocate once: once the lock is held, the key is looked up
--   again with a fresh snapshot (READ COMMITTED: each statement of a plpgsql function takes
--   one), and an earlier use of the key has committed or rolled back by then.
--
-- The rare case is a creator that finds the key only in that second look-up: a first use of the
-- same key committed while it waited for the lock. It gives its number back (a second write of
-- the counter row, under the same lock, so no one else has seen the number) and skips the insert.
-- The app then reads the stored document in a second round trip, because the INSERT statement's
-- own snapshot predates that commit.
CREATE OR REPLACE FUNCTION documents_allocate_number() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  taken bigint;
BEGIN
  -- A replay of a committed request: answered without queueing behind the tenant's creators.
  IF NEW.idempotency_key IS NOT NULL AND documents_key_taken(NEW.tenant_id, NEW.idempotency_key) THEN
    RETURN NULL;
  END IF;

  UPDATE document_sequences SET last_number = last_number + 1
  WHERE tenant_id = NEW.tenant_id
  RETURNING last_number INTO taken;
  IF NOT FOUND THEN
    -- The tenant's first number; a concurrent first creator waits on this row, then increments it.
    INSERT INTO document_sequences AS s (tenant_id, last_number) VALUES (NEW.tenant_id, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET last_number = s.last_number + 1
    RETURNING s.last_number INTO taken;
  END IF;

  IF NEW.idempotency_key IS NOT NULL AND documents_key_taken(NEW.tenant_id, NEW.idempotency_key) THEN
    UPDATE document_sequences SET last_number = last_number - 1 WHERE tenant_id = NEW.tenant_id;
    RETURN NULL;
  END IF;

  NEW.doc_number := taken;
  RETURN NEW;
END;
$$;

-- VOLATILE (the default) on purpose: each call reads with a snapshot of its own, taken at the
-- call, so the look-up after the lock sees a use of the key committed while this creator waited.
CREATE FUNCTION documents_key_taken(tenant text, key text) RETURNS boolean LANGUAGE sql AS $$
  SELECT EXISTS (SELECT 1 FROM documents WHERE tenant_id = tenant AND idempotency_key = key)
$$;

-- Only documents created with an Idempotency-Key need the key's unique index. Most carry none, and
-- each of those added a (tenant, NULL) entry to it under the tenant's lock; a partial index skips
-- them. Look-ups by key (`idempotency_key = …` implies it is not null) still use it, and a second
-- document with the same key for a tenant is still refused.
ALTER TABLE documents DROP CONSTRAINT documents_tenant_idempotency_key_key;
CREATE UNIQUE INDEX documents_tenant_idempotency_key ON documents (tenant_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
