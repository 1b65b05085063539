// Shared by the hardening suites: what the database holds (to prove "nothing written") and a
// logger that keeps every line it is given.
import { expect } from "vitest";
import type { Logger, LogLevel } from "../../core/log.ts";
import type { KvCache } from "../../core/ports/kv.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { kvMismatches } from "./invariants.ts";

/** Per table: row count and a digest of every row, so an UPDATE shows as well as an INSERT. */
export type DatabaseSnapshot = Record<string, { rows: number; digest: string }>;

/** Reads every table of the app's schema in one round trip (one query built once). */
export async function snapshotter(sql: Sql): Promise<() => Promise<DatabaseSnapshot>> {
  const tables = (
    await sql.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename",
    )
  ).map((row) => row.name);
  if (tables.length === 0) throw new Error("no tables: the schema is not migrated");
  const query = tables
    .map(
      (name) =>
        `SELECT '${name}' AS name, count(*)::int AS rows, ` +
        `md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM "${name}" t`,
    )
    .join(" UNION ALL ");
  return async () => {
    const snapshot: DatabaseSnapshot = {};
    for (const row of await sql.query<{ name: string; rows: number; digest: string }>(query)) {
      snapshot[row.name] = { rows: Number(row.rows), digest: row.digest };
    }
    return snapshot;
  };
}

interface CollectedLine {
  level: LogLevel;
  event: string;
  fields: Record<string, unknown>;
  /** The line exactly as a JSON-lines logger would print it. */
  text: string;
}

/** A logger that keeps every line, serialized the way core/log.ts's consoleLogger prints it. */
export function collectingLogger(): Logger & { lines: CollectedLine[] } {
  const lines: CollectedLine[] = [];
  return {
    lines,
    log(level, event, fields = {}) {
      lines.push({
        level,
        event,
        fields,
        text: JSON.stringify({ time: new Date().toISOString(), level, event, ...fields }),
      });
    },
  };
}

/** The KV cache holds exactly one readable entry per link in Postgres, with the same owner. */
export async function expectKvMatchesDatabase(sql: Sql, kv: KvCache): Promise<void> {
  expect(await kvMismatches(sql, kv)).toEqual([]);
}
