// Asset SQL. Every function is ONE statement, so one round trip over Neon's SQL-over-HTTP. A
// conditional write checks and writes in the same statement and reports why it wrote nothing:
//
// - `current` reads the asset as of the statement's snapshot;
// - the UPDATE/DELETE re-checks its WHERE on the newest row version after waiting for a
//   concurrent writer's lock (READ COMMITTED), so of two writers holding the same ETag only the
//   first changes the row; the second finds the etag changed and writes nothing;
// - the outcome is decided from both, in RFC 9110 order: absent → not_found, no ETag match →
//   conflict (412), approved → locked (409). A write that matched the snapshot but lost the race
//   to a concurrent change is a conflict too: the version it named is no longer current.

import { toIsoTimestamp } from "../ports/rows.ts";
import type { Row, Sql } from "../ports/sql.ts";
import type { Asset, AssetFields, AssetPatch, AssetStatus } from "./model.ts";
import type { MatchCondition } from "./preconditions.ts";

export type WriteOutcome = "not_found" | "conflict" | "locked";

export type WriteResult = { outcome: "updated"; asset: Asset } | { outcome: WriteOutcome };

const COLUMNS = "id, name, material, status, etag, updated_at";

export function toAsset(row: Row): Asset {
  return {
    id: row.id as string,
    name: row.name as string,
    material: row.material as string,
    status: row.status as AssetStatus,
    etag: row.etag as string,
    updatedAt: toIsoTimestamp(row.updated_at),
  };
}

// $1 tenant, $2 id, $3 "*" given, $4 strong opaque-tags: shared by every conditional write.
const CURRENT = "SELECT etag, status FROM assets WHERE tenant_id = $1 AND id = $2";
const MATCHES = "($3::boolean OR etag = ANY ($4::text[]))";

/** The outcome of a conditional write whose data-modifying CTE is `written`. */
const outcome = (written: string, done: string) => `
  SELECT CASE
           WHEN ${written}.id IS NOT NULL THEN '${done}'
           WHEN current.etag IS NULL THEN 'not_found'
           WHEN NOT ($3::boolean OR current.etag = ANY ($4::text[])) THEN 'conflict'
           WHEN current.status = 'approved' THEN 'locked'
           ELSE 'conflict'
         END AS outcome`;

const UPDATE_SQL = `
  WITH current AS (${CURRENT}),
  changed AS (
    UPDATE assets
       SET name = coalesce($5::text, name),
           material = coalesce($6::text, material),
           status = CASE WHEN $7::boolean THEN 'approved' ELSE status END
     WHERE tenant_id = $1 AND id = $2 AND status = 'draft' AND ${MATCHES}
    RETURNING ${COLUMNS}
  )
  ${outcome("changed", "updated")}, changed.*
    FROM (SELECT) AS one LEFT JOIN current ON true LEFT JOIN changed ON true`;

const DELETE_SQL = `
  WITH current AS (${CURRENT}),
  removed AS (
    DELETE FROM assets
     WHERE tenant_id = $1 AND id = $2 AND status = 'draft' AND ${MATCHES}
    RETURNING id
  )
  ${outcome("removed", "deleted")}
    FROM (SELECT) AS one LEFT JOIN current ON true LEFT JOIN removed ON true`;

export async function findAsset(sql: Sql, tenantId: string, id: string): Promise<Asset | undefined> {
  const [row] = await sql.query(`SELECT ${COLUMNS} FROM assets WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
  return row && toAsset(row);
}

/** Creates the asset unless the id is taken in this tenant (then `undefined`). */
export async function insertAsset(
  sql: Sql,
  tenantId: string,
  id: string,
  fields: AssetFields,
): Promise<Asset | undefined> {
  const [row] = await sql.query(
    `INSERT INTO assets (tenant_id, id, name, material) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [tenantId, id, fields.name, fields.material],
  );
  return row && toAsset(row);
}

interface AssetChange extends AssetPatch {
  approve?: boolean;
}

/** PATCH, PUT-replace and approve: one compare-and-set statement. */
export async function updateAsset(
  sql: Sql,
  tenantId: string,
  id: string,
  condition: MatchCondition,
  change: AssetChange,
): Promise<WriteResult> {
  const [row] = await sql.query(UPDATE_SQL, [
    tenantId,
    id,
    condition.any,
    condition.tags,
    change.name ?? null,
    change.material ?? null,
    change.approve === true,
  ]);
  const result = row!.outcome as "updated" | WriteOutcome;
  return result === "updated" ? { outcome: result, asset: toAsset(row!) } : { outcome: result };
}

export async function deleteAsset(
  sql: Sql,
  tenantId: string,
  id: string,
  condition: MatchCondition,
): Promise<"deleted" | WriteOutcome> {
  const [row] = await sql.query(DELETE_SQL, [tenantId, id, condition.any, condition.tags]);
  return row!.outcome as "deleted" | WriteOutcome;
}

export interface ImportRow {
  line: number;
  id: string;
  name: string;
  material: string;
  sourceEtag: string;
}

type ImportOutcome = "updated" | WriteOutcome;

interface ImportResult {
  outcome: ImportOutcome;
  /** The new version token, when updated. */
  etag?: string;
}

// All rows in one statement (Fastly Compute allows 32 backend requests per execution), each
// still its own compare-and-set. Rows naming the same asset behave as if applied one after
// another: the first whose source_etag is current may write; every later one names a version
// that is no longer current (the write replaced the etag with an unknown random one): conflict.
const IMPORT_SQL = `
  WITH input AS (
    SELECT * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[])
      AS t(line, id, name, material, source_etag)
  ),
  current AS (
    SELECT id, etag, status FROM assets WHERE tenant_id = $1 AND id = ANY ($3::text[])
  ),
  eligible AS (
    SELECT DISTINCT ON (i.id) i.*
      FROM input i JOIN current c ON c.id = i.id AND c.etag = i.source_etag AND c.status = 'draft'
     ORDER BY i.id, i.line
  ),
  changed AS (
    UPDATE assets a
       SET name = e.name, material = e.material
      FROM eligible e
     WHERE a.tenant_id = $1 AND a.id = e.id AND a.status = 'draft' AND a.etag = e.source_etag
    RETURNING e.line, a.etag
  )
  SELECT i.line,
         CASE
           WHEN changed.line IS NOT NULL THEN 'updated'
           WHEN c.id IS NULL THEN 'not_found'
           WHEN c.etag <> i.source_etag THEN 'conflict'
           WHEN c.status = 'approved' THEN 'locked'
           ELSE 'conflict'
         END AS outcome,
         changed.etag
    FROM input i
    LEFT JOIN current c ON c.id = i.id
    LEFT JOIN changed ON changed.line = i.line`;

/** Applies valid CSV rows; the outcome of each, by line. */
export async function importRows(
  sql: Sql,
  tenantId: string,
  rows: readonly ImportRow[],
): Promise<Map<number, ImportResult>> {
  if (rows.length === 0) return new Map();
  const result = await sql.query(IMPORT_SQL, [
    tenantId,
    rows.map((r) => r.line),
    rows.map((r) => r.id),
    rows.map((r) => r.name),
    rows.map((r) => r.material),
    rows.map((r) => r.sourceEtag),
  ]);
  return new Map(
    result.map((row) => [
      Number(row.line),
      { outcome: row.outcome as ImportOutcome, ...(row.etag ? { etag: row.etag as string } : {}) },
    ]),
  );
}
