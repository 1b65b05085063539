-- The timeouts of 0016 (statement 5 s, lock wait 4 s, idle in a transaction 5 s) reach whichever
-- role the app runs as. 0016 set them for the role that migrates only; an app that connects as a
-- role of its own, with only the app's rights (as docs/local-stack.md recommends), had none, and
-- its 503 "not written" no longer held (a statement could outlive the client's deadline, then
-- commit). A role's settings are set by someone who can alter it, and the app's role may be made
-- after this migration: so they are set for the whole database, the project's own.
--
-- Except where the migrations were asked to go beside another application's tables
-- (MIGRATE_BESIDE_OTHER_TABLES=true, which the migrator passes on as the transaction-local
-- edge_race_free.beside_other_tables): the database's other clients keep theirs, and the app's
-- role needs the three settings for itself (docs/local-stack.md). A value already set for the
-- whole database is its owner's, and stays.
DO $$
DECLARE
  own_settings constant text[] := ARRAY['statement_timeout=5s', 'lock_timeout=4s', 'idle_in_transaction_session_timeout=5s'];
  setting text;
  database_wide text[] := coalesce((
    SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
    WHERE d.datname = current_database() AND s.setrole = 0
  ), '{}');
BEGIN
  IF current_setting('edge_race_free.beside_other_tables', true) = 'true' THEN
    RETURN;
  END IF;
  FOREACH setting IN ARRAY own_settings LOOP
    IF NOT EXISTS (SELECT 1 FROM unnest(database_wide) given WHERE given LIKE split_part(setting, '=', 1) || '=%') THEN
      EXECUTE format('ALTER DATABASE %I SET %I = %L',
        current_database(), split_part(setting, '=', 1), split_part(setting, '=', 2));
    END IF;
  END LOOP;
END
$$;
