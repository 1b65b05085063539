// sql/0006_link_tenants.sql first shipped as one transaction that locked the links for 14 s on
// 1,000,000 rows; it now runs online and sql/0013 finishes it. Deployed databases recorded the
// first version by name and never run the new one, so both paths must end in the same schema and
// the same data, and the new files must change nothing where the first version ran. Meanwhile the
// release before tenants keeps linking, with its 409s, until 0013.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { linkAccount } from "../../core/links/repository.ts";
import type { SqlBackend } from "../../dev/local-stack/neon-endpoint/backend.ts";
import { createPgBackend } from "../../dev/local-stack/neon-endpoint/pg-backend.ts";
import {
  FIRST_TENANT_MIGRATION,
  LINK_BEFORE_TENANTS,
  migrationsBeforeTenants,
  REFUSED_BEFORE_TENANTS,
} from "../../dev/support/links-before-tenants.ts";
import { poolSql } from "../../dev/support/pool-sql.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { DEFAULT_MIGRATIONS_DIR, migrate, migrationFiles } from "../../edge/migrate/migrate.ts";

const FIRST_VERSION = join(import.meta.dirname, "fixtures", "0006_link_tenants.first-version.sql");
const CONTRACT = "0013_link_tenants_contract.sql";
const LINKS = 3_000;

/** A folder of migrations: `names` from sql/, and `extra` (file name → path). */
async function migrationsDir(names: string[], extra: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tenant-schema-"));
  for (const name of names) await copyFile(join(DEFAULT_MIGRATIONS_DIR, name), join(dir, name));
  for (const [name, path] of Object.entries(extra)) await copyFile(path, join(dir, name));
  return dir;
}

const rows = async (backend: SqlBackend, query: string) => (await backend.query({ query, params: [] })).rows;

/** Links of before tenants: some with a display name, a few users with several providers. */
const SEED = `INSERT INTO linked_external_accounts (provider, external_account_id, user_id, display_name, linked_at)
  SELECT 'p' || (n % 7), 'acct-' || n, 'user-' || (n / 3), CASE WHEN n % 4 = 0 THEN 'Name ' || n END,
    timestamptz '2025-01-01 00:00:00+00' + n * interval '1 second'
  FROM generate_series(1, ${LINKS}) AS n`;

/** Every object of the schema as the catalog describes it, without OIDs or sizes. */
const CATALOG = [
  `SELECT 'column', c.relname || '.' || a.attname, a.attnum::text || ' ' || format_type(a.atttypid, a.atttypmod)
     || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
     || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') || ' ' || a.attidentity::text
   FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
   LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'S') AND a.attnum > 0 AND NOT a.attisdropped`,
  `SELECT 'constraint', conrelid::regclass::text || '.' || conname,
     pg_get_constraintdef(oid) || CASE WHEN convalidated THEN '' ELSE ' NOT VALID' END
   FROM pg_constraint WHERE connamespace = 'public'::regnamespace`,
  `SELECT 'index', i.indexrelid::regclass::text,
     pg_get_indexdef(i.indexrelid) || CASE WHEN i.indisvalid THEN '' ELSE ' INVALID' END
   FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relnamespace = 'public'::regnamespace`,
  `SELECT 'function', p.oid::regprocedure::text, pg_get_functiondef(p.oid)
   FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace`,
  `SELECT 'trigger', tgrelid::regclass::text || '.' || tgname, pg_get_triggerdef(oid)
   FROM pg_trigger WHERE NOT tgisinternal`,
  `SELECT 'setting', 'database', array_to_string(setconfig, ' ')
   FROM pg_db_role_setting WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`,
].join("\nUNION ALL\n");

const catalog = async (backend: SqlBackend) => rows(backend, `${CATALOG}\nORDER BY 1, 2`);

const LINK_ROWS = `SELECT id::text, tenant_id, provider, external_account_id, user_id, display_name, linked_at::text
  FROM linked_external_accounts ORDER BY id`;

const linkRows = async (backend: SqlBackend) => [
  ...(await rows(backend, LINK_ROWS)),
  ...(await rows(backend, "SELECT last_value::text FROM linked_external_accounts_id_seq")),
];

describeWithPostgres("links get tenants online, as the first sql/0006 gave them [postgres]", () => {
  const databases: TestDatabase[] = [];
  const backends: SqlBackend[] = [];
  const dirs: string[] = [];
  let all: string[];
  let before: string;

  /** A database holding the links of before tenants. */
  async function databaseBeforeTenants(): Promise<SqlBackend> {
    const database = await createTestDatabase();
    databases.push(database);
    const backend = createPgBackend(database.url, { max: 2 });
    backends.push(backend);
    await migrate(backend, before);
    await backend.exec(SEED);
    return backend;
  }

  const dirOf = async (names: string[], extra?: Record<string, string>) => {
    const dir = await migrationsDir(names, extra);
    dirs.push(dir);
    return dir;
  };

  let firstVersion: SqlBackend;
  let online: SqlBackend;
  let untouched: { before: unknown; after: unknown; applied: string[] };
  beforeAll(async () => {
    all = await migrationFiles(DEFAULT_MIGRATIONS_DIR);
    before = await dirOf(await migrationsBeforeTenants());
    // As deployed: the first 0006 and what followed it up to 0012, then this release's files.
    firstVersion = await databaseBeforeTenants();
    const deployed = all.filter((name) => name > FIRST_TENANT_MIGRATION && name < CONTRACT);
    await migrate(firstVersion, await dirOf(deployed, { [FIRST_TENANT_MIGRATION]: FIRST_VERSION }));
    const deployedCatalog = await catalog(firstVersion);
    const applied = await migrate(firstVersion, await dirOf(all.filter((name) => name <= CONTRACT)));
    untouched = { before: deployedCatalog, after: await catalog(firstVersion), applied };
    await migrate(firstVersion); // the files after the contract step
    online = await databaseBeforeTenants();
    await migrate(online);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(backends.map((backend) => backend.close()));
    await Promise.all(databases.map((database) => database.drop()));
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("ends in the same schema either way", async () => {
    const schema = await catalog(online);
    expect(schema).toEqual(await catalog(firstVersion));
    expect(schema).toContainEqual([
      "index",
      "linked_external_accounts_external_account_key",
      "CREATE UNIQUE INDEX linked_external_accounts_external_account_key ON public.linked_external_accounts USING btree (tenant_id, lower(provider), external_account_id)",
    ]);
    expect(schema.filter((row) => String(row[2]).includes("NOT VALID") || String(row[2]).includes("INVALID"))).toEqual(
      [],
    );
  });

  it("ends with the same links, every one in the tenant 'legacy'", async () => {
    const links = await linkRows(online);
    expect(links).toEqual(await linkRows(firstVersion));
    expect(await rows(online, "SELECT tenant_id, count(*)::int FROM linked_external_accounts GROUP BY 1")).toEqual([
      ["legacy", String(LINKS)],
    ]);
  });

  it("changes nothing in a database the first version migrated", () => {
    expect(untouched.applied).toEqual([CONTRACT]);
    expect(untouched.after).toEqual(untouched.before);
  });

  it("ends in the same schema on a fresh database", async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const fresh = createPgBackend(database.url, { max: 2 });
    backends.push(fresh);
    expect(await migrate(fresh)).toEqual(all);
    expect(await catalog(fresh)).toEqual(await catalog(online));
  });

  it("lets the release before tenants link, with its 409s, until 0013, and this release after", async () => {
    const backend = await databaseBeforeTenants();
    await migrate(backend, await dirOf(all.filter((name) => name < CONTRACT)));
    const link = (provider: string, account: string, user: string) =>
      backend.query({ query: LINK_BEFORE_TENANTS, params: [provider, account, user, null, "false"] });
    // A new link, in 'legacy'; a re-link; another user's account (no row: 409); a second account
    // of a provider the user holds (23505 on the index name that release maps).
    expect((await link("github", "new-1", "olga")).rows).toHaveLength(1);
    expect((await link("github", "new-1", "olga")).rows).toHaveLength(1);
    expect((await link("github", "new-1", "piet")).rows).toEqual([]);
    await expect(link("github", "new-2", "olga")).rejects.toMatchObject({
      fields: { code: "23505", constraint: "linked_external_accounts_user_provider_key" },
    });
    expect(
      await rows(backend, "SELECT tenant_id FROM linked_external_accounts WHERE external_account_id = 'new-1'"),
    ).toEqual([["legacy"]]);

    expect(await migrate(backend)).toEqual(all.filter((name) => name >= CONTRACT));
    const refused = await link("github", "new-3", "quinn").catch((error: { fields?: { code?: string } }) => error);
    expect(REFUSED_BEFORE_TENANTS.has((refused as { fields: { code: string } }).fields.code)).toBe(true);
    const pool = new pg.Pool({ connectionString: databases.at(-1)?.url, max: 1 });
    const linked = await linkAccount(poolSql(pool), {
      tenantId: "acme",
      provider: "github",
      externalAccountId: "new-1",
      userId: "rosa",
      displayName: null,
      replaceDisplayName: false,
      maxLinksPerUser: 100,
    });
    await pool.end();
    expect(linked.outcome).toBe("created"); // per tenant now: 'legacy' holds it, 'acme' may too
  });
});
