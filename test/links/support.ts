// Shared helpers of the link suites: paths, and what Postgres and the KV store hold.
import { type CacheEntry, decodeEntry } from "../../core/links/cache.ts";
import { LINK_KEY_PREFIX, linkKey, tenantKeyPrefix } from "../../core/links/kv-keys.ts";
import type { Link, LinkTarget } from "../../core/links/link.ts";
import type { KvCache } from "../../core/ports/kv.ts";
import type { Row, Sql } from "../../core/ports/sql.ts";

/** A link as Postgres answers one, for the tests that need no database. */
export const sampleLink: Link = {
  provider: "github",
  externalAccountId: "42",
  userId: "alice",
  displayName: null,
  linkedAt: "2026-01-01T00:00:00.000Z",
};

export const linkPath = (provider: string, externalAccountId: string) =>
  `/v1/links/${encodeURIComponent(provider)}/${encodeURIComponent(externalAccountId)}`;

/** Every row of the table (or of one account), straight from the database. */
export async function linkRows(sql: Sql, target?: LinkTarget): Promise<Row[]> {
  if (!target)
    return sql.query(
      "SELECT provider, external_account_id, user_id, display_name FROM linked_external_accounts ORDER BY id",
    );
  return sql.query(
    "SELECT provider, external_account_id, user_id, display_name FROM linked_external_accounts WHERE lower(provider) = $1 AND external_account_id = $2",
    [target.provider, target.externalAccountId],
  );
}

/** The entry cached for `target` of `tenantId` (the test tokens' default tenant unless named). */
export async function cachedEntry(kv: KvCache, target: LinkTarget, tenantId = "acme"): Promise<CacheEntry | undefined> {
  const text = await kv.get(await linkKey(tenantId, target));
  return text === null ? undefined : decodeEntry(text);
}

/** Every key of one tenant's cached links (null: of every tenant), all pages. */
export async function cacheKeys(kv: KvCache, tenantId: string | null = "acme"): Promise<string[]> {
  const prefix = tenantId === null ? LINK_KEY_PREFIX : tenantKeyPrefix(tenantId);
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await kv.list(prefix, cursor === undefined ? {} : { cursor });
    keys.push(...page.keys);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return keys;
}
