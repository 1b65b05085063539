// The migrating session on PostgreSQL (Neon's direct host included): one connection of its own,
// over pg, with no deadline of the client's own. An index built CONCURRENTLY on a large table takes
// its time and must not be abandoned (and reported failed) while the server goes on building.
import pg from "pg";
import { LOCK_TIMEOUT, type MigrationSession } from "./migrate.ts";
import { withExplicitSslMode } from "./pg-url.ts";

/**
 * The connection string with the session's own settings as startup options (they outlive any
 * reset): no statement timeout, and LOCK_TIMEOUT, so a no-transaction statement that would queue
 * behind traffic gives up and is retried.
 */
export function migrationSession(databaseUrl: string): string {
  const url = new URL(withExplicitSslMode(databaseUrl));
  const own = `-c statement_timeout=0 -c lock_timeout=${LOCK_TIMEOUT}`;
  const given = url.searchParams.get("options");
  url.searchParams.set("options", given ? `${given} ${own}` : own);
  return url.toString();
}

// Every value as Postgres sends it: the migrator reads text, as it does from PGlite.
const AS_TEXT = { getTypeParser: () => (value: string) => value };

/** A session that connects on its first statement and keeps that one connection until closed. */
export function postgresMigrationSession(databaseUrl: string): MigrationSession & { close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: migrationSession(databaseUrl), max: 1, types: AS_TEXT });
  // A connection that breaks while idle is replaced at the next statement; its error is not fatal.
  pool.on("error", () => {});
  return {
    async query({ query, params }) {
      const result = await pool.query({ text: query, values: params, rowMode: "array" });
      return { rows: result.rows as (string | null)[][] };
    },
    async exec(script) {
      const client = await pool.connect();
      try {
        await client.query(script);
        client.release();
      } catch (error) {
        // A script that failed inside its BEGIN leaves the transaction open and aborted.
        await client.query("ROLLBACK").then(
          () => client.release(),
          () => client.release(true),
        );
        throw error;
      }
    },
    close: () => pool.end(),
  };
}
