-- migrate: no-transaction
-- Links belong to a tenant, like assets and documents: every index that decides ownership is
-- per tenant, so across tenants nothing is shared, visible or in conflict.
--
-- Links stored before tenants existed keep their rows, ids and timestamps and are given the
-- tenant 'legacy': tokens of any other tenant no longer see them. A deployment that served one
-- customer moves them to that customer's tenant with one statement, e.g.
--   UPDATE linked_external_accounts SET tenant_id = 'acme' WHERE tenant_id = 'legacy';
--
-- Online (docs/deploy.md, expand/deploy/contract): this file only adds, statement by statement,
-- and none of its statements stops writes for longer than a catalog change; sql/0013 then swaps
-- the indexes in and drops the default, in one short transaction. The schema both leave behind
-- is the one this file first shipped in a single transaction, which held an exclusive lock for
-- 5 to 14 s on 1,000,000 links (test/links/tenant-schema.test.ts compares the two). Databases that
-- applied that first version recorded this file's name and do not run it again; for them 0013
-- finds nothing to do.
--
-- The release before tenants (sql/0001-0005) keeps working, 409s included, through this file and
-- every other one until 0013 commits; from then on it cannot link (docs/deploy.md says the rest).
--
-- Every statement is safe to run again (a failed run is simply run again):
-- 1. The column, with a constant default: a catalog change (PostgreSQL >= 11 rewrites nothing;
--    existing rows read 'legacy'). The default stays until 0013, so the release before tenants,
--    whose inserts name no tenant, keeps linking (as 'legacy') until then.
ALTER TABLE linked_external_accounts ADD COLUMN IF NOT EXISTS tenant_id text NOT NULL DEFAULT 'legacy';

-- 2. The check, NOT VALID: new rows are checked from now on, existing ones by step 4. Dropped and
--    added in one statement, so a second run replaces it instead of failing on its name.
ALTER TABLE linked_external_accounts
  DROP CONSTRAINT IF EXISTS linked_external_accounts_tenant_id_valid,
  ADD CONSTRAINT linked_external_accounts_tenant_id_valid CHECK (tenant_id ~ '^[A-Za-z0-9_-]{1,64}$') NOT VALID;

-- 3. The per-tenant unique indexes, built CONCURRENTLY (writes go on) under temporary names: the
--    indexes of 0001 keep their names, which the release before tenants maps to its 409s, and
--    keep judging its writes (its ON CONFLICT infers the external-account index of 0001, by its
--    columns). They are created first, so a row that breaks both reports theirs. No build can
--    fail on existing data: what is unique without the tenant is unique with it.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS linked_external_accounts_tenant_external_account_key
  ON linked_external_accounts (tenant_id, lower(provider), external_account_id);

CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS linked_external_accounts_tenant_user_provider_key
  ON linked_external_accounts (tenant_id, user_id, lower(provider));

-- Resync walks one tenant's links in id order. Nothing holds this name yet: it is final.
CREATE INDEX CONCURRENTLY IF NOT EXISTS linked_external_accounts_tenant_id_key
  ON linked_external_accounts (tenant_id, id);

-- 4. The existing rows checked: a scan under a lock that lets writes through.
ALTER TABLE linked_external_accounts VALIDATE CONSTRAINT linked_external_accounts_tenant_id_valid;
