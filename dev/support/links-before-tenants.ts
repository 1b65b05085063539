// The link writes of the release before tenants (sql/0001 to 0005): what still runs while a
// deployment of it migrates to tenants (sql/0006 to 0013), in the tests and in the migration bench.
import { DEFAULT_MIGRATIONS_DIR, migrationFiles } from "../../edge/migrate/migrate.ts";

/** The first migration that release did not know. */
export const FIRST_TENANT_MIGRATION = "0006_link_tenants.sql";

/** Its link: $1 provider, $2 external account, $3 user, $4 display name, $5 whether to replace it. */
export const LINK_BEFORE_TENANTS = `
INSERT INTO linked_external_accounts AS linked (provider, external_account_id, user_id, display_name)
VALUES ($1, $2, $3, $4)
ON CONFLICT ((lower(provider)), external_account_id) DO UPDATE
  SET display_name = CASE WHEN $5::boolean THEN excluded.display_name ELSE linked.display_name END
  WHERE linked.user_id = excluded.user_id
RETURNING provider, external_account_id, user_id, display_name, linked_at, (xmax = 0) AS created`;

/** Its unlink: $1 provider, $2 external account, $3 user. */
export const UNLINK_BEFORE_TENANTS = `
DELETE FROM linked_external_accounts
WHERE lower(provider) = $1 AND external_account_id = $2 AND user_id = $3
RETURNING 1`;

/**
 * What the schema answers that release's link with once sql/0013 has run: its ON CONFLICT names no
 * unique index any more (42P10), or, without one, its insert names no tenant (23502).
 */
export const REFUSED_BEFORE_TENANTS = new Set(["42P10", "23502"]);

/** The migrations of sql/ that release had applied. */
export async function migrationsBeforeTenants(): Promise<string[]> {
  return (await migrationFiles(DEFAULT_MIGRATIONS_DIR)).filter((name) => name < FIRST_TENANT_MIGRATION);
}
