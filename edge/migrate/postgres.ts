// The migrating session on PostgreSQL (Neon's direct host included): one connection of its own,
// over postgres.js, with no deadline of the client's own. An index built CONCURRENTLY on a large
// table takes its time and must not be abandoned (and reported failed) while the server goes on
// building.
import postgres from "postgres";
import { databaseConnection } from "./database-url.ts";
import { LOCK_TIMEOUT, type MigrationSession } from "./migrate.ts";

/**
 * The session's own settings, sent as startup parameters (they outlive any reset): no statement
 * timeout, and LOCK_TIMEOUT, so a no-transaction statement that would queue behind traffic gives
 * up and is retried.
 */
export const MIGRATION_SETTINGS: Record<string, string> = { statement_timeout: "0", lock_timeout: LOCK_TIMEOUT };

/** A session that connects on its first statement and keeps that one connection until closed. */
export function postgresMigrationSession(databaseUrl: string): MigrationSession & { close(): Promise<void> } {
  const { url, ssl, options } = databaseConnection(databaseUrl);
  const sql = postgres(url, {
    max: 1,
    ssl,
    connection: { ...(options ? { options } : {}), ...MIGRATION_SETTINGS },
    // One connection for the whole run (no recycling), no statements prepared by name, and no
    // type lookup: the migrator reads every value as text.
    max_lifetime: null,
    prepare: false,
    fetch_types: false,
    onnotice: () => {},
  });
  const asText = (value: Buffer | null) => (value === null ? null : value.toString("utf8"));
  return {
    async query({ query, params }) {
      // Raw: every value as the bytes Postgres sent, its text, as the migrator reads from PGlite.
      const rows = await sql.unsafe(query, params).raw().catch(rethrowAsSessionError);
      return { rows: rows.map((row) => (row as (Buffer | null)[]).map(asText)) };
    },
    async exec(script) {
      try {
        await sql.unsafe(script).simple();
      } catch (error) {
        // A script that failed inside its BEGIN leaves the transaction open and aborted.
        await sql.unsafe("ROLLBACK").simple();
        rethrowAsSessionError(error);
      }
    },
    close: () => sql.end(),
  };
}

/** The error with the fields a MigrationSession's errors carry: `code`, and `constraint` as pg names it. */
function rethrowAsSessionError(error: unknown): never {
  if (error instanceof postgres.PostgresError) throw Object.assign(error, { constraint: error.constraint_name });
  throw error;
}
