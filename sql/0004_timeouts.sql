-- The database gives up before the client does. The app's driver abandons a round trip after
-- 10 s and answers 503 "not written"; a statement still running then could commit after that
-- answer. Every session of this database (the app's, on Neon as locally) stops a statement at
-- 5 s and a lock wait at 4 s, so the database, not the client, decides, and a refused statement
-- has rolled back. Migrations lift the statement timeout for themselves (SET LOCAL).
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET statement_timeout = %L', current_database(), '5s');
  EXECUTE format('ALTER DATABASE %I SET lock_timeout = %L', current_database(), '4s');
END
$$;
