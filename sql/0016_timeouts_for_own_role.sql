-- The timeouts of 0004 (statement 5 s, lock wait 4 s) and 0010 (idle in a transaction 5 s) are
-- the project's own: they apply to its role's sessions in this database (the role that migrates,
-- which is the app's on Neon; the local stack gives its app role the same, dev/local-stack/app-role.ts), never
-- to the other clients of a database it shares. The database-wide ones 0004 and 0010 set are
-- reset where they are still as those set them; a value someone set since is theirs, and stays.
DO $$
DECLARE
  own_settings constant text[] := ARRAY['statement_timeout=5s', 'lock_timeout=4s', 'idle_in_transaction_session_timeout=5s'];
  setting text;
  database_wide text[] := (
    SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
    WHERE d.datname = current_database() AND s.setrole = 0
  );
BEGIN
  FOREACH setting IN ARRAY own_settings LOOP
    EXECUTE format('ALTER ROLE CURRENT_USER IN DATABASE %I SET %I = %L',
      current_database(), split_part(setting, '=', 1), split_part(setting, '=', 2));
    IF setting = ANY (coalesce(database_wide, '{}')) THEN
      EXECUTE format('ALTER DATABASE %I RESET %I', current_database(), split_part(setting, '=', 1));
    END IF;
  END LOOP;
END
$$;
