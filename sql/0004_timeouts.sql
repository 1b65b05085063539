-- The database gives up before the client does. The app's driver abandons a round trip after
-- 10 s and answers 503 "not written"; a statement still running then could commit after that
-- answer. Every session of this database (the app's, on Neon as locally) stops a statement at
-- 5 s and a lock wait at 4 s, so the database, not the client, decides, and a refused statement
-- has rolled back. Migrations lift the statement timeout for themselves (SET LOCAL). A value the
-- database's owner set for the whole database before is theirs, and stays (0016 and 0017 give the
-- project's sessions theirs).
DO $$
DECLARE
  setting text;
BEGIN
  FOREACH setting IN ARRAY ARRAY['statement_timeout=5s', 'lock_timeout=4s'] LOOP
    CONTINUE WHEN EXISTS (
      SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase, unnest(s.setconfig) given
      WHERE d.datname = current_database() AND s.setrole = 0 AND given LIKE split_part(setting, '=', 1) || '=%'
    );
    EXECUTE format('ALTER DATABASE %I SET %I = %L',
      current_database(), split_part(setting, '=', 1), split_part(setting, '=', 2));
  END LOOP;
END
$$;
