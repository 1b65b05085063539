-- The contract step of sql/0006_link_tenants.sql: the per-tenant indexes it built under temporary
-- names take the names of those of 0001 (the application maps a 23505 on these names, and only
-- these, to its 409 codes), and new rows must name their tenant.
--
-- One transaction, under one exclusive lock taken first and held for a catalog change only (the
-- indexes exist; nothing is scanned): writes wait at most the lock timeout for it (500 ms, then
-- the migration is retried), plus a few milliseconds.
--
-- Last of the files, so the release before tenants keeps working through every other one. From
-- this commit on its link writes fail (its ON CONFLICT matches no index any more, and its inserts
-- name no tenant): deploy the release with tenants right after migrating (docs/deploy.md).
--
-- A database that applied the first version of 0006 (one transaction) has the final names and no
-- default already: nothing is found here, nothing is locked or changed.
DO $$
DECLARE
  swap boolean := to_regclass('linked_external_accounts_tenant_external_account_key') IS NOT NULL
    OR to_regclass('linked_external_accounts_tenant_user_provider_key') IS NOT NULL;
  has_default boolean := EXISTS (
    SELECT 1 FROM pg_attribute
    WHERE attrelid = 'linked_external_accounts'::regclass AND attname = 'tenant_id' AND atthasdef
  );
BEGIN
  IF NOT (swap OR has_default) THEN
    RETURN;
  END IF;
  LOCK TABLE linked_external_accounts IN ACCESS EXCLUSIVE MODE;
  IF EXISTS (
    SELECT 1 FROM pg_index
    WHERE indexrelid IN (
        to_regclass('linked_external_accounts_tenant_external_account_key'),
        to_regclass('linked_external_accounts_tenant_user_provider_key')
      )
      AND NOT indisvalid
  ) THEN
    RAISE EXCEPTION 'an index built by sql/0006_link_tenants.sql is not valid (still being built, or its build failed)';
  END IF;
  IF to_regclass('linked_external_accounts_tenant_external_account_key') IS NOT NULL THEN
    DROP INDEX linked_external_accounts_external_account_key;
    ALTER INDEX linked_external_accounts_tenant_external_account_key
      RENAME TO linked_external_accounts_external_account_key;
  END IF;
  IF to_regclass('linked_external_accounts_tenant_user_provider_key') IS NOT NULL THEN
    DROP INDEX linked_external_accounts_user_provider_key;
    ALTER INDEX linked_external_accounts_tenant_user_provider_key
      RENAME TO linked_external_accounts_user_provider_key;
  END IF;
  IF has_default THEN
    -- The default only filled the rows of before; the release with tenants names one always.
    ALTER TABLE linked_external_accounts ALTER COLUMN tenant_id DROP DEFAULT;
  END IF;
END
$$;
