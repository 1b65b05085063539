// What a statement of the app reads on a seeded PostgreSQL, from its EXPLAIN ANALYZE: the rows
// each scan of a table produced or filtered out. A count, not a time, so a test can hold a
// statement to the rows of its page or batch, however many the table holds, on a busy machine.
import pg from "pg";
import { createTestDatabase, type TestDatabase } from "../../dev/support/postgres.ts";
import { migrateDatabaseUrl } from "../../edge/migrate/run.ts";

/** A new database with every migration applied, and a session on it without the app's timeouts. */
export async function migratedDatabase(): Promise<{ database: TestDatabase; client: pg.Client }> {
  const database = await createTestDatabase();
  const log = console.log;
  console.log = () => {}; // the migrator reports each file; only its exit code matters here
  const code = await migrateDatabaseUrl(database.url).finally(() => {
    console.log = log;
  });
  if (code !== 0) throw new Error("the migrations failed on a new database");
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  // Seeding takes longer than the 5 s the migrations give a statement.
  await client.query("SET statement_timeout = 0");
  return { database, client };
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

/**
 * The rows of `table` that `statement` read: for each scan of it, the rows it produced and those
 * it filtered out (a bitmap's index entries for a bitmap scan). Run and rolled back.
 */
export async function rowsRead(client: pg.Client, table: string, statement: string, params: unknown[]) {
  const indexes = new Set(
    (
      await client.query<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE tablename = $1", [table])
    ).rows.map((row) => row.name),
  );
  await client.query("BEGIN");
  try {
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`, params);
    const [{ Plan }] = rows[0]["QUERY PLAN"] as [{ Plan: PlanNode }];
    return readOf(Plan, table, indexes);
  } finally {
    await client.query("ROLLBACK");
  }
}

function readOf(node: PlanNode, table: string, indexes: Set<string>): number {
  const loops = node["Actual Loops"];
  const scansTable =
    node["Node Type"] === "Bitmap Index Scan"
      ? indexes.has(node["Index Name"] ?? "")
      : node["Node Type"] !== "Bitmap Heap Scan" &&
        node["Relation Name"] === table &&
        node["Node Type"].endsWith("Scan");
  const own = scansTable ? (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0)) * loops : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + readOf(child, table, indexes), 0);
}
