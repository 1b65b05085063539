// Promises checked against the database itself, after a soak or a fault: one owner per account,
// gapless document numbers, and a KV cache that holds exactly what Postgres does.
import { linkKey } from "../../core/links/kv-keys.ts";
import type { KvCache } from "../../core/ports/kv.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { cachedEntry, cacheKeys } from "../links/support.ts";

/** Every account with more than one owner, and every user linked twice on one provider. */
export async function duplicateOwners(sql: Sql): Promise<string[]> {
  const rows = await sql.query(`
    SELECT 'account ' || lower(provider) || '/' || external_account_id AS what, count(*)::int AS owners
      FROM linked_external_accounts GROUP BY 1 HAVING count(*) > 1
    UNION ALL
    SELECT 'user ' || user_id || ' on ' || lower(provider), count(*)::int
      FROM linked_external_accounts GROUP BY 1 HAVING count(*) > 1`);
  return rows.map((row) => `${String(row.what)} has ${String(row.owners)} links`);
}

/**
 * Per tenant whose id is LIKE `tenants`: numbers 1..n with n = the counter, no duplicate; and,
 * when `created` counts them, n = the documents created (not replayed).
 */
export async function numberingGaps(
  sql: Sql,
  tenants: string,
  created?: ReadonlyMap<string, number>,
): Promise<string[]> {
  const rows = await sql.query(
    `SELECT s.tenant_id, s.last_number::int AS counter, count(d.id)::int AS documents,
            count(DISTINCT d.doc_number)::int AS distinct_numbers, coalesce(max(d.doc_number), 0)::int AS highest
       FROM document_sequences s LEFT JOIN documents d USING (tenant_id)
      WHERE s.tenant_id LIKE $1 GROUP BY s.tenant_id, s.last_number`,
    [tenants],
  );
  const violations: string[] = [];
  for (const row of rows) {
    const tenant = String(row.tenant_id);
    const facts = [row.counter, row.documents, row.distinct_numbers, row.highest];
    if (created) facts.push(created.get(tenant) ?? 0);
    if (new Set(facts).size !== 1) {
      violations.push(
        `${tenant}: counter, documents, distinct numbers, highest${created ? ", created" : ""} = ${facts.join(", ")}`,
      );
    }
  }
  return violations;
}

/** The KV cache holds exactly one readable entry per link in Postgres, with the same owner. */
export async function kvMismatches(sql: Sql, kv: KvCache): Promise<string[]> {
  const links = await sql.query(
    "SELECT tenant_id, provider, external_account_id, user_id FROM linked_external_accounts",
  );
  const expected = new Map<string, string>();
  const violations: string[] = [];
  for (const row of links) {
    const target = { provider: String(row.provider), externalAccountId: String(row.external_account_id) };
    const tenantId = String(row.tenant_id);
    expected.set(await linkKey(tenantId, target), String(row.user_id));
    const entry = await cachedEntry(kv, target, tenantId);
    if (entry?.link.userId !== row.user_id)
      violations.push(
        `KV holds ${entry?.link.userId ?? "nothing"} for ${target.externalAccountId}, owned by ${String(row.user_id)}`,
      );
  }
  for (const key of await cacheKeys(kv, null)) {
    if (!expected.has(key)) violations.push(`KV holds ${key}, which no link in Postgres has`);
  }
  return violations;
}
