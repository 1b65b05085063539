// The migrating session on PostgreSQL (Neon's direct host included): one connection of its own,
// over postgres.js, with no deadline on a statement. An index built CONCURRENTLY on a large
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

// postgres.js converts a parameter by the type the server infers for it (JSON.stringify for jsonb,
// 't'/'f' for boolean, …); the migrator's parameters are already Postgres text, sent as they are.
const VERBATIM = {
  to: 25,
  from: [16, 17, 21, 23, 26, 114, 700, 701, 1082, 1114, 1184, 3802],
  serialize: String,
  parse: String,
};

type Client = ReturnType<typeof postgres>;

/**
 * How long a client may take to start its session. The one deadline of the client's own: a server
 * that closes every connection during startup without an error has postgres.js reconnect at once,
 * forever (porsager/postgres#1193), so without it the migrator would hang instead of failing.
 */
export const CONNECT_DEADLINE_MS = 30_000;

function openClient(databaseUrl: string): Client {
  const { url, ssl, options } = databaseConnection(databaseUrl);
  return postgres(url, {
    max: 1,
    ssl,
    connection: { ...(options ? { options } : {}), ...MIGRATION_SETTINGS },
    types: { verbatim: VERBATIM },
    // One connection for the whole run (no recycling), no statements prepared by name, and no
    // type lookup: the migrator reads every value as text.
    max_lifetime: null,
    prepare: false,
    fetch_types: false,
    onnotice: () => {},
  });
}

/** A client whose session has started, or a failure once `deadlineMs` has passed without one. */
async function connectedClient(databaseUrl: string, deadlineMs: number): Promise<Client> {
  const sql = openClient(databaseUrl);
  const { host, port } = new URL(databaseUrl);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no database session within ${deadlineMs / 1000} s from ${host}:${port || 5432}`)),
      deadlineMs,
    );
  });
  try {
    await Promise.race([sql.unsafe("SELECT 1").simple(), deadline]);
    return sql;
  } catch (error) {
    await sql.end({ timeout: 0 });
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A session that connects on its first statement and keeps that one connection until closed. */
export function postgresMigrationSession(
  databaseUrl: string,
  { connectDeadlineMs = CONNECT_DEADLINE_MS } = {},
): MigrationSession & { close(): Promise<void> } {
  databaseConnection(databaseUrl); // refuses an sslmode it would not verify, before any statement
  let client: Promise<Client> | undefined;
  const connected = () => {
    client ??= connectedClient(databaseUrl, connectDeadlineMs);
    return client;
  };
  // After its connection broke under a statement, a postgres.js client leaves later statements
  // waiting forever (porsager/postgres#1130): the next statement gets a new client instead.
  const onFailure = (error: unknown): never => {
    if (brokeConnection(error)) {
      const broken = client;
      client = undefined;
      void broken?.then(
        (sql) => sql.end({ timeout: 0 }),
        () => {},
      );
      throw error;
    }
    throw Object.assign(error as postgres.PostgresError, {
      constraint: (error as postgres.PostgresError).constraint_name,
    });
  };
  const asText = (value: Buffer | null) => (value === null ? null : value.toString("utf8"));
  return {
    async query({ query, params }) {
      // Raw: every value as the bytes Postgres sent, its text, as the migrator reads from PGlite.
      const sql = await connected().catch(onFailure);
      const rows = await sql.unsafe(query, params).raw().catch(onFailure);
      return { rows: rows.map((row) => (row as (Buffer | null)[]).map(asText)) };
    },
    async exec(script) {
      const sql = await connected().catch(onFailure);
      try {
        await sql.unsafe(script).simple();
      } catch (error) {
        // A script that failed inside its BEGIN leaves the transaction open and aborted.
        if (!brokeConnection(error)) await sql.unsafe("ROLLBACK").simple();
        onFailure(error);
      }
    },
    async close() {
      const sql = await client?.catch(() => undefined);
      await sql?.end({ timeout: 5 });
    },
  };
}

/** A failure of the connection itself (a socket error, or the server ending the session). */
function brokeConnection(error: unknown): boolean {
  return !(error instanceof postgres.PostgresError) || error.severity === "FATAL" || error.severity === "PANIC";
}
