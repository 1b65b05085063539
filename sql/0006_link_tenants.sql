-- Links belong to a tenant, like assets and documents: every index that decides ownership is
-- per tenant, so across tenants nothing is shared, visible or in conflict.
--
-- Links stored before tenants existed keep their rows, ids and timestamps and are given the
-- tenant 'legacy': tokens of any other tenant no longer see them. A deployment that served one
-- customer moves them to that customer's tenant with one statement, e.g.
--   UPDATE linked_external_accounts SET tenant_id = 'acme' WHERE tenant_id = 'legacy';
ALTER TABLE linked_external_accounts ADD COLUMN tenant_id text NOT NULL DEFAULT 'legacy';
-- New rows always name their tenant; the default only filled the existing ones.
ALTER TABLE linked_external_accounts ALTER COLUMN tenant_id DROP DEFAULT;
ALTER TABLE linked_external_accounts ADD CONSTRAINT linked_external_accounts_tenant_id_valid
  CHECK (tenant_id ~ '^[A-Za-z0-9_-]{1,64}$');

-- The same names as before, now per tenant: the application maps a 23505 on these names (and
-- only these) to its 409 codes.
DROP INDEX linked_external_accounts_external_account_key;
DROP INDEX linked_external_accounts_user_provider_key;

CREATE UNIQUE INDEX linked_external_accounts_external_account_key
  ON linked_external_accounts (tenant_id, lower(provider), external_account_id);

CREATE UNIQUE INDEX linked_external_accounts_user_provider_key
  ON linked_external_accounts (tenant_id, user_id, lower(provider));

-- Resync walks one tenant's links in id order.
CREATE INDEX linked_external_accounts_tenant_id_key ON linked_external_accounts (tenant_id, id);
