-- Documents: a document is dated when its number is taken, under the tenant's lock, so createdAt
-- never goes back as docNumber goes up: an invoice numbered after another is never dated before it.
--
-- created_at defaulted to now(), the start of the inserting statement: a creator that started
-- first but took the tenant's lock second was numbered after a document dated later than itself
-- (by as long as it waited for the lock; across midnight, on the day before). clock_timestamp(),
-- read once the number is taken, follows the order in which the tenant's creators hold the lock,
-- which is the order of their numbers. The key's expiry, sent as now() + its lifetime, moves by
-- as much: it still ends that lifetime after the document's creation.
--
-- A trigger of its own: PostgreSQL fires a table's BEFORE triggers in the order of their names,
-- so this one runs after documents_allocate_number has taken the number (and holds the lock), and
-- not at all when that one skipped the insert (a replay). The statements of the release before
-- it are unchanged.
CREATE FUNCTION documents_date_when_numbered() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.created_at := clock_timestamp();
  NEW.idempotency_expires_at := NEW.idempotency_expires_at + (NEW.created_at - now());
  RETURN NEW;
END;
$$;

CREATE TRIGGER documents_date_when_numbered BEFORE INSERT ON documents
  FOR EACH ROW EXECUTE FUNCTION documents_date_when_numbered();
