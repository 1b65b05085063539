-- Links per user are capped (LINK_MAX_PER_USER): a user cannot grow their own list, or the
-- tenant's table, without bound. The link statement (core/links/repository.ts) asks this
-- function before it inserts, in the same statement, and passes the cap it runs with.
--
-- A count in the INSERT statement itself would be wrong under concurrency: two new links of one
-- user, each counting with its own snapshot, would both see room for one. Here the user's lock
-- comes first, and the count after it takes a snapshot of its own (READ COMMITTED: each statement
-- of a plpgsql function does), so it sees every link of the user committed while this one
-- waited. The lock is held until commit: the user's new links are counted one after another.
--
-- The account the caller already holds is always allowed: re-linking it (200) adds nothing,
-- and it may have been linked a moment ago by the caller's own concurrent request.
--
-- The lock is an advisory transaction lock in the two-key space: the first key names this use,
-- the second the user (tenant ids cannot contain ':'). Two users whose keys collide only wait for
-- each other. A wait counts against lock_timeout (sql/0004_timeouts.sql) like any other.
--
-- Only a function is created: no table is locked or rewritten, whatever the size of the data.
-- Users above a cap lowered later keep their links; they link nothing new until under it.
CREATE FUNCTION links_may_add(
  tenant text, owner text, target_provider text, target_account text, max_links integer
) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('linked_external_accounts_per_user'), hashtext(tenant || ':' || owner));
  RETURN EXISTS (
      SELECT 1 FROM linked_external_accounts
      WHERE tenant_id = tenant AND user_id = owner
        AND lower(provider) = target_provider AND external_account_id = target_account
    )
    -- Counts no further than the cap, however many links an older, higher cap left.
    OR (
      SELECT count(*) FROM (
        SELECT 1 FROM linked_external_accounts WHERE tenant_id = tenant AND user_id = owner LIMIT max_links
      ) AS held
    ) < max_links;
END;
$$;
