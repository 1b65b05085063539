// The local endpoint's PostgreSQL backend: a bounded pg Pool answering in Neon's wire shape.
import pg from "pg";
import {
  beginStatement,
  PostgresError,
  toPostgresError,
  type BatchOptions,
  type QueryResult,
  type SqlBackend,
  type Statement,
} from "./backend.ts";

export interface PgBackendOptions {
  /** Most connections held at once (default 10): bounds what a load test can do to PostgreSQL. */
  max?: number;
  /** How long a request may wait to connect or for a free pooled client (default 10 s). */
  connectionTimeoutMillis?: number;
}

// Every type, arrays included, comes back as the text Postgres sent: the Neon driver parses it.
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

// pg's QueryConfig typing lacks queryMode; "extended" makes pg prepare even with no values.
// Without it pg sends parameterless text over the simple protocol, which runs
// "SELECT 1; DROP TABLE x" as two statements, where Neon refuses it (42601).
type ExtendedQuery = pg.QueryArrayConfig & { queryMode: "extended" };

export function createPgBackend(connectionString: string, options: PgBackendOptions = {}): SqlBackend {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
  });
  // An idle client dying (server restart) is reported here; unhandled it would crash the
  // process. The pool drops that client and the next checkout connects afresh.
  pool.on("error", () => {});
  // The same for a checked-out client (the pool listens only while it is idle): its next query
  // then fails with a plain Error, and that client is destroyed on release.
  pool.on("connect", (client) => client.on("error", () => {}));
  let closed = false;

  async function checkout(): Promise<pg.PoolClient> {
    if (closed) throw new Error("the PostgreSQL backend is closed");
    try {
      return await pool.connect();
    } catch (error) {
      // Even a server-sent refusal (unknown database, too many clients) is not the statement's
      // fault: a plain Error, which the endpoint answers with 5xx, never a PostgresError.
      throw new Error(`could not connect to PostgreSQL: ${errorMessage(error)}`);
    }
  }

  return {
    kind: "postgres",

    async query(statement) {
      const client = await checkout();
      let failed = false;
      try {
        return await run(client, statement);
      } catch (error) {
        failed = !(error instanceof PostgresError) || isFatal(error);
        throw error;
      } finally {
        // Like Neon: a connection left inside a transaction (a bare BEGIN) is not reused.
        client.release(failed || client.getTransactionStatus() !== "I");
      }
    },

    async batch(statements, batchOptions) {
      const client = await checkout();
      try {
        const results = await runInTransaction(client, statements, batchOptions);
        client.release(client.getTransactionStatus() !== "I");
        return results;
      } catch (error) {
        // A client whose rollback failed is in an unknown state: destroy it, never pool it.
        client.release(await rollback(client));
        throw error;
      }
    },

    async exec(script) {
      const client = await checkout();
      try {
        await client.query(script); // no values: the simple protocol, several statements allowed
        client.release(client.getTransactionStatus() !== "I");
      } catch (error) {
        // A failing "BEGIN; …; COMMIT" script leaves its transaction open and aborted.
        client.release(await rollback(client));
        throw error instanceof pg.DatabaseError ? toPostgresError(error) : error;
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

async function runInTransaction(
  client: pg.PoolClient,
  statements: Statement[],
  options: BatchOptions,
): Promise<QueryResult[]> {
  await run(client, { query: beginStatement(options), params: [] });
  const results: QueryResult[] = [];
  for (const statement of statements) results.push(await run(client, statement));
  await run(client, { query: "COMMIT", params: [] });
  return results;
}

/** One statement over the extended protocol, answered as raw text. */
async function run(client: pg.PoolClient, statement: Statement): Promise<QueryResult> {
  const config: ExtendedQuery = {
    text: statement.query,
    values: statement.params,
    rowMode: "array",
    types: RAW_TEXT,
    queryMode: "extended",
  };
  try {
    const result = await client.query<(string | null)[]>(config);
    return {
      fields: result.fields.map((f) => ({
        name: f.name,
        dataTypeID: f.dataTypeID,
        tableID: f.tableID,
        columnID: f.columnID,
        dataTypeSize: f.dataTypeSize,
        dataTypeModifier: f.dataTypeModifier,
        format: "text" as const,
      })),
      rows: result.rows,
      command: result.command ?? "", // an empty query has no tag
      rowCount: result.rowCount ?? null,
    };
  } catch (error) {
    throw error instanceof pg.DatabaseError ? toPostgresError(error) : error;
  }
}

/** ROLLBACK; returns an error when the client must be destroyed rather than pooled. */
async function rollback(client: pg.PoolClient): Promise<Error | undefined> {
  try {
    await client.query("ROLLBACK");
    return client.getTransactionStatus() === "I" ? undefined : new Error("still in a transaction");
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** FATAL/PANIC end the session (e.g. pg_terminate_backend): that client must not be pooled again. */
function isFatal(error: PostgresError): boolean {
  return error.fields.severity === "FATAL" || error.fields.severity === "PANIC";
}

function errorMessage(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return errorMessage(error.errors[0]);
  return error instanceof Error ? error.message || error.name : String(error);
}
