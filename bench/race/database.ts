// Where the races run: a scratch schema (dev/support/scratch-schema.ts) in a real PostgreSQL.
// Requests reach it the production way: the app's Neon client → the local Neon-compatible endpoint →
// PostgreSQL (`sql`). The numbering throughput comparison and the checks after each race use
// plain connections (`pool`).
import pg from "pg";
import type { Sql } from "../../core/ports/sql.ts";
import { isPostgresUrl, type LocalStack, startLocalStack } from "../../dev/local-stack/stack.ts";
import { createScratchSchema, LOCAL_POSTGRES_URL, serverVersion } from "../../dev/support/scratch-schema.ts";
import { createNeonSql } from "../../edge/neon/neon-sql.ts";
import { SetupError } from "../lib/cli.ts";

export interface RaceDatabase {
  /** The SQL port over the Neon client and the local endpoint, as the app uses it. */
  sql: Sql;
  stack: LocalStack;
  /** Plain connections pinned to the scratch schema. */
  pool: pg.Pool;
  /** Where it runs, password-free, for the report. */
  description: string;
  serverVersion: string;
  /** Ends the connections and drops the schema with everything the run wrote. */
  close(): Promise<void>;
}

/** Tables of the naive and alternative strategies, next to the app's own (from sql/, already migrated). */
const RACE_TABLES = `
CREATE TABLE race_naive_links (
  provider text NOT NULL, external_account_id text NOT NULL, user_id text NOT NULL,
  linked_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE race_naive_documents (
  tenant_id text NOT NULL, doc_number bigint NOT NULL, contract_id text NOT NULL,
  UNIQUE (tenant_id, doc_number)
);
-- The other numbering strategies write the app's very row (same columns, defaults and indexes,
-- no trigger): the throughput comparison then weighs the numbering, not the table.
CREATE TABLE race_advisory_documents (LIKE documents INCLUDING ALL);
CREATE TABLE race_serializable_documents (LIKE documents INCLUDING ALL);
CREATE TABLE race_counters (tenant_id text PRIMARY KEY, n bigint NOT NULL DEFAULT 0);
`;

type OpenResult = { database: RaceDatabase } | { unavailable: string };

/**
 * The PostgreSQL in `databaseUrl`, else the local one when it answers. Only an explicit
 * DATABASE_URL that fails is an error; a missing local server is reported as `unavailable`.
 */
export async function openRaceDatabase(
  databaseUrl: string | undefined,
  sizes: { endpointPool: number; directPool: number },
): Promise<OpenResult> {
  if (databaseUrl !== undefined && !isPostgresUrl(databaseUrl)) {
    throw new SetupError("DATABASE_URL must be a postgres:// or postgresql:// URL");
  }
  const target = databaseUrl ?? LOCAL_POSTGRES_URL;
  const version = await serverVersion(target);
  if (version instanceof Error) {
    const where = `${new URL(target).host}${databaseUrl ? " (DATABASE_URL)" : ""}`;
    if (databaseUrl) throw new SetupError(`PostgreSQL at ${where} is unreachable: ${version.message}`);
    return { unavailable: `no PostgreSQL answers at ${where}` };
  }

  const schema = await createScratchSchema(target, "race");
  let stack: LocalStack | undefined;
  try {
    // Migrates, then creates the race tables as the owner; requests run as the app role.
    stack = await startLocalStack({ databaseUrl: schema.url, poolSize: sizes.endpointPool, ownerSql: RACE_TABLES });
  } catch (error) {
    await stack?.close();
    await schema.drop();
    throw error;
  }
  const { neonFetchEndpoint, databaseUrl: stackUrl } = stack;

  const sql = createNeonSql({ databaseUrl: stackUrl, fetchEndpoint: neonFetchEndpoint });
  const pool = new pg.Pool({ connectionString: schema.url, max: sizes.directPool, connectionTimeoutMillis: 10_000 });
  pool.on("error", () => {}); // an idle client dying must not crash the run; the next checkout reconnects
  return {
    database: {
      sql,
      stack,
      pool,
      description: `${schema.description}${databaseUrl ? " (DATABASE_URL)" : ""}`,
      serverVersion: version,
      async close() {
        await pool.end();
        await stack?.close();
        await schema.drop();
      },
    },
  };
}
