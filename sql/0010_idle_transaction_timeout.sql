-- No session of this database may hold a transaction open while doing nothing for more than 5 s.
--
-- The link change feed (0007) is read only below the oldest transaction still in flight on the
-- whole server (pg_snapshot_xmin), so one transaction left open, by a console, a script or a
-- crashed client, held every deployment's invalidation back for as long as it stayed open (27 s
-- measured, against 2 s without it). The application never idles inside a transaction: each of
-- its writes is one statement, a Neon batch is sent whole, and a migration is one script. Such a
-- session is ended instead (SQLSTATE 25P03), and its transaction rolled back, so the horizon
-- moves on. Transactions that keep running statements are bounded by statement_timeout (0004)
-- per statement only: docs/links.md states the bound with that condition. Other databases on the
-- same server need the same setting (ALTER DATABASE … or ALTER ROLE …): their transactions count
-- for the horizon too. A value the database's owner set for the whole database before is theirs,
-- and stays (0016 and 0017 give the project's sessions theirs).
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase,
      unnest(s.setconfig) given
    WHERE d.datname = current_database() AND s.setrole = 0
      AND given LIKE 'idle\_in\_transaction\_session\_timeout=%'
  ) THEN
    EXECUTE format('ALTER DATABASE %I SET idle_in_transaction_session_timeout = %L', current_database(), '5s');
  END IF;
END
$$;
