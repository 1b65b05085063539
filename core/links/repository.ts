// Links in Postgres. The unique indexes of sql/0006_link_tenants.sql (named by sql/0013) decide
// who owns what within a tenant; every write is one statement, and no answer depends on a read
// made before it. Every statement names the tenant: no query reads, changes or conflicts with
// another tenant's links.
import { keysetPage, type Page } from "../http/pagination.ts";
import { toIsoTimestamp } from "../ports/rows.ts";
import { isUniqueViolation, type Row, type Sql } from "../ports/sql.ts";
import type { Link, LinkTarget } from "./link.ts";

export interface NewLink extends LinkTarget {
  tenantId: string;
  userId: string;
  displayName: string | null;
  /** Whether an existing link of the same user takes `displayName` (the body carried the field). */
  replaceDisplayName: boolean;
  /** The most links the user may hold (LINK_MAX_PER_USER); a re-link of their own is always allowed. */
  maxLinksPerUser: number;
}

export type LinkConflictCode = "external_account_already_linked" | "provider_already_linked" | "link_limit_reached";

type LinkResult = { outcome: "created" | "existing"; link: Link } | { outcome: "conflict"; code: LinkConflictCode };

/** The index names are part of the schema's contract; a 23505 on any other one is a bug. */
const CONFLICTS_BY_INDEX: Readonly<Record<string, LinkConflictCode>> = {
  linked_external_accounts_external_account_key: "external_account_already_linked",
  linked_external_accounts_user_provider_key: "provider_already_linked",
};

const COLUMNS = "provider, external_account_id, user_id, display_name, linked_at";

// The external-account index is the arbiter: a conflict with the caller's own row updates it
// (idempotent re-link, 200), a conflict with another user's row fails the WHERE and returns no
// row (409). Because the arbiter is checked first, re-linking one's own account is never
// mistaken for `provider_already_linked`, and an account held by someone else is reported as such
// even when the caller also has another account of that provider. The user-provider index is not
// an arbiter, so it raises 23505. Under READ COMMITTED ON CONFLICT waits for a concurrent insert
// and then takes one of the two branches: at most one statement creates the link.
// `xmax = 0` holds only for a freshly inserted row version.
//
// The same statement records a change (sql/0007_link_changes.sql) for a new link and for a new
// display name, and none for a re-link that changed nothing. `before` locks the caller's own row
// first (the INSERT reads it, so it runs first): FOR UPDATE waits for a concurrent writer and
// yields the latest committed name. A row inserted concurrently, after this statement's snapshot,
// is not in `before`; its re-link is then recorded too, an extra change that costs one KV delete.
//
// `gate` asks sql/0009_links_per_user_cap.sql whether the user may hold one more link, taking the
// user's lock; when not, nothing is inserted and `allowed` is false. It comes before any row lock
// (`before` joins it): a statement holding the caller's row while waiting for the user's lock,
// behind one holding that lock and upserting the same row, would deadlock. The final LEFT JOIN
// answers one row in every case: `allowed`, then the link's columns, null when nothing was linked.
const LINK = `
WITH gate AS MATERIALIZED (
  SELECT links_may_add($6, $3, $1, $2, $7::integer) AS allowed
),
before AS (
  SELECT display_name FROM linked_external_accounts, gate
  WHERE tenant_id = $6 AND lower(provider) = $1 AND external_account_id = $2 AND user_id = $3
  FOR UPDATE OF linked_external_accounts
),
linked AS (
  INSERT INTO linked_external_accounts AS linked (tenant_id, provider, external_account_id, user_id, display_name)
  SELECT $6::text, $1::text, $2::text, $3::text, $4::text FROM (SELECT count(*) FROM before) AS locked_first, gate
  WHERE gate.allowed
  ON CONFLICT (tenant_id, (lower(provider)), external_account_id) DO UPDATE
    SET display_name = CASE WHEN $5::boolean THEN excluded.display_name ELSE linked.display_name END
    WHERE linked.user_id = excluded.user_id
  RETURNING ${COLUMNS}, (xmax = 0) AS created
),
change AS (
  INSERT INTO link_changes (tenant_id, provider, external_account_id)
  SELECT $6, provider, external_account_id FROM linked
  WHERE created OR NOT EXISTS (SELECT 1 FROM before WHERE before.display_name IS NOT DISTINCT FROM linked.display_name)
)
SELECT gate.allowed, linked.* FROM gate LEFT JOIN linked ON true`;

// lower(provider) lets these use the unique indexes (providers are stored lower-case anyway).
const BY_TARGET = `
SELECT ${COLUMNS} FROM linked_external_accounts
WHERE tenant_id = $3 AND lower(provider) = $1 AND external_account_id = $2`;

// Walks the user-provider index: a page costs its own rows, however many links the user has.
const USER_PAGE = `
SELECT ${COLUMNS} FROM linked_external_accounts
WHERE tenant_id = $1 AND user_id = $2 AND lower(provider) > $3
ORDER BY lower(provider)
LIMIT $4`;

// The unlink and its change feed row: one statement, so there is a row exactly when a link went.
const UNLINK = `
WITH unlinked AS (
  DELETE FROM linked_external_accounts
  WHERE tenant_id = $4 AND lower(provider) = $1 AND external_account_id = $2 AND user_id = $3
  RETURNING tenant_id, provider, external_account_id
),
change AS (
  INSERT INTO link_changes (tenant_id, provider, external_account_id)
  SELECT tenant_id, provider, external_account_id FROM unlinked
)
SELECT 1 FROM unlinked`;

// Keyset on the external-account index: a page is named by the tenant's own last link, never by
// a row id (one sequence for every tenant, whose gaps would count the others' links).
const PAGE = `
SELECT ${COLUMNS} FROM linked_external_accounts
WHERE tenant_id = $4 AND (lower(provider), external_account_id) > ($1, $2)
ORDER BY lower(provider), external_account_id
LIMIT $3`;

const BY_TARGETS = `
SELECT l.provider, l.external_account_id, l.user_id, l.display_name, l.linked_at
FROM linked_external_accounts AS l
JOIN unnest($1::text[], $2::text[]) AS wanted (provider, external_account_id)
  ON lower(l.provider) = wanted.provider AND l.external_account_id = wanted.external_account_id
WHERE l.tenant_id = $3`;

/** $1-$6 of a statement that links or changes a link (LINK, replace.ts' REPLACE). */
export const linkParams = (link: Omit<NewLink, "maxLinksPerUser">): unknown[] => [
  link.provider,
  link.externalAccountId,
  link.userId,
  link.displayName,
  link.replaceDisplayName,
  link.tenantId,
];

export async function linkAccount(sql: Sql, link: NewLink): Promise<LinkResult> {
  const params = [...linkParams(link), String(link.maxLinksPerUser)];
  let result = await tryLink(sql, params);
  // ON CONFLICT only arbitrates its own index. When the same user links the same account twice at
  // once, the later statement can meet the earlier one's row in the user-provider index first and
  // fail there, though the row is the very link it asked for. Run once more: the arbiter then sees
  // the committed row and answers 200, or the user really has another account of the provider.
  // The rare race costs one more round trip; nothing else does.
  if (result === "provider_already_linked") result = await tryLink(sql, params);
  if (typeof result === "string") return { outcome: "conflict", code: result };
  const [row] = result;
  if (row?.allowed === false) return { outcome: "conflict", code: "link_limit_reached" };
  // No link row: the account is another user's (the upsert's WHERE refused it).
  if (!row || row.provider === null) return { outcome: "conflict", code: "external_account_already_linked" };
  return { outcome: row.created === true ? "created" : "existing", link: toLink(row) };
}

async function tryLink(sql: Sql, params: unknown[]): Promise<Row[] | LinkConflictCode> {
  try {
    return await sql.query(LINK, params);
  } catch (error) {
    const code = isUniqueViolation(error) ? CONFLICTS_BY_INDEX[error.constraint ?? ""] : undefined;
    if (code) return code;
    throw error;
  }
}

export async function findLink(sql: Sql, tenantId: string, target: LinkTarget): Promise<Link | undefined> {
  const [row] = await sql.query(BY_TARGET, [target.provider, target.externalAccountId, tenantId]);
  return row && toLink(row);
}

/** The user's links with providers after `after` (none: from the first), in provider order. */
export async function listUserLinks(
  sql: Sql,
  tenantId: string,
  userId: string,
  { after = "", limit }: { after?: string; limit: number },
): Promise<Page<Link, string>> {
  const rows = await sql.query(USER_PAGE, [tenantId, userId, after, String(limit + 1)]);
  return keysetPage(rows, limit, toLink, (link) => link.provider);
}

/** Deletes the link only when `userId` owns it; false when there was nothing of theirs. */
export async function unlinkAccount(sql: Sql, tenantId: string, target: LinkTarget, userId: string): Promise<boolean> {
  const rows = await sql.query(UNLINK, [target.provider, target.externalAccountId, userId, tenantId]);
  return rows.length > 0;
}

interface LinkPage {
  links: Link[];
  /** Where the next page starts; undefined after the last one. */
  next: LinkTarget | undefined;
}

/** One tenant's links in target order, keyset-paginated for resync: after `after` (none: from the first). */
export async function pageLinks(
  sql: Sql,
  tenantId: string,
  after: LinkTarget | undefined,
  limit: number,
): Promise<LinkPage> {
  const rows = await sql.query(PAGE, [after?.provider ?? "", after?.externalAccountId ?? "", String(limit), tenantId]);
  const links = rows.map(toLink);
  const last = links.at(-1);
  return { links, next: links.length === limit && last ? targetOf(last) : undefined };
}

// Lower-cased as the index orders it (rows stored before providers were lower-cased may not be).
const targetOf = ({ provider, externalAccountId }: LinkTarget): LinkTarget => ({
  provider: provider.toLowerCase(),
  externalAccountId,
});

/** The links of the tenant among `targets` that exist, in one round trip. */
export async function findLinks(sql: Sql, tenantId: string, targets: readonly LinkTarget[]): Promise<Link[]> {
  if (targets.length === 0) return [];
  const rows = await sql.query(BY_TARGETS, [
    targets.map((t) => t.provider),
    targets.map((t) => t.externalAccountId),
    tenantId,
  ]);
  return rows.map(toLink);
}

const ACROSS_TENANTS = `
SELECT l.tenant_id, l.provider, l.external_account_id, l.user_id, l.display_name, l.linked_at
FROM linked_external_accounts AS l
JOIN unnest($1::text[], $2::text[], $3::text[]) AS wanted (tenant_id, provider, external_account_id)
  ON l.tenant_id = wanted.tenant_id AND lower(l.provider) = wanted.provider
  AND l.external_account_id = wanted.external_account_id`;

/** The links among `targets` (each of its own tenant) that exist, in one round trip: for the sync. */
export async function findLinksAcrossTenants(
  sql: Sql,
  targets: readonly (LinkTarget & { tenantId: string })[],
): Promise<(Link & { tenantId: string })[]> {
  if (targets.length === 0) return [];
  const rows = await sql.query(ACROSS_TENANTS, [
    targets.map((t) => t.tenantId),
    targets.map((t) => t.provider),
    targets.map((t) => t.externalAccountId),
  ]);
  return rows.map((row) => ({ tenantId: String(row.tenant_id), ...toLink(row) }));
}

export function toLink(row: Row): Link {
  return {
    provider: String(row.provider),
    externalAccountId: String(row.external_account_id),
    userId: String(row.user_id),
    displayName: row.display_name === null ? null : String(row.display_name),
    linkedAt: toIsoTimestamp(row.linked_at),
  };
}
