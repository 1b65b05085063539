// A PUT with If-Match: it changes the caller's existing link, and never creates one. One
// statement, like every link write (repository.ts): the check and the change cannot be told
// apart by a concurrent link or unlink.
import type { Sql } from "../ports/sql.ts";
import type { Link } from "./link.ts";
import { linkParams, type NewLink, toLink } from "./repository.ts";

type ReplaceResult =
  | { outcome: "replaced"; link: Link }
  /** No link of this account in the tenant. */
  | { outcome: "absent" }
  /** Another user's link. */
  | { outcome: "taken" }
  /** The caller's, and the condition failed: nothing was changed. */
  | { outcome: "failed" };

// `current` locks the account's row, whoever holds it: FOR UPDATE waits for a concurrent writer
// and yields its committed row (none after an unlink). The update changes it only when it is the
// caller's and the condition holds ($7: If-Match `*`; a listed tag never matches, links having no
// ETag). A new display name is recorded in the change feed, as a link's is. It takes no user's
// lock (sql/0009): it adds no link, and holding a row while waiting for that lock could deadlock.
// The final LEFT JOINs answer one row in every case: the holder, then the changed link's columns.
const REPLACE = `
WITH current AS (
  SELECT user_id, display_name FROM linked_external_accounts
  WHERE tenant_id = $6 AND lower(provider) = $1 AND external_account_id = $2
  FOR UPDATE
),
replaced AS (
  UPDATE linked_external_accounts AS linked
  SET display_name = CASE WHEN $5::boolean THEN $4::text ELSE linked.display_name END
  FROM current
  WHERE linked.tenant_id = $6 AND lower(linked.provider) = $1 AND linked.external_account_id = $2
    AND linked.user_id = $3 AND current.user_id = $3 AND $7::boolean
  RETURNING linked.provider, linked.external_account_id, linked.user_id, linked.display_name, linked.linked_at,
    current.display_name AS previous
),
change AS (
  INSERT INTO link_changes (tenant_id, provider, external_account_id)
  SELECT $6, provider, external_account_id FROM replaced
  WHERE display_name IS DISTINCT FROM previous
)
SELECT current.user_id AS holder, replaced.*
FROM (SELECT 1) AS one LEFT JOIN current ON true LEFT JOIN replaced ON true`;

/** Changes the caller's link when `holds` (If-Match: *); what stood in the way otherwise. */
export async function replaceLink(
  sql: Sql,
  link: Omit<NewLink, "maxLinksPerUser">,
  holds: boolean,
): Promise<ReplaceResult> {
  const [row] = await sql.query(REPLACE, [...linkParams(link), holds]);
  if (!row || row.holder === null) return { outcome: "absent" };
  if (String(row.holder) !== link.userId) return { outcome: "taken" };
  if (row.provider === null) return { outcome: "failed" };
  return { outcome: "replaced", link: toLink(row) };
}
