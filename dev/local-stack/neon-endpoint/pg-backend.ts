// The local endpoint's PostgreSQL backend: a bounded pg Pool answering in Neon's wire shape.
import pg from "pg";
import {
  type BatchOptions,
  beginStatement,
  mayChangeSession,
  NotStartedError,
  PostgresError,
  type QueryResult,
  RESET_SESSION,
  type SqlBackend,
  type Statement,
  toPostgresError,
} from "./backend.ts";

interface PgBackendOptions {
  /** Most connections held at once (default 20): bounds what a load test can do to PostgreSQL. */
  max?: number;
  /**
   * How long a request may queue for a connection (default 4 s) before it is refused unstarted
   * (503). Kept, with the database's statement_timeout, below the SQL port's 10 s deadline.
   */
  connectionTimeoutMillis?: number;
  /**
   * How long a statement may go unanswered (default 5 s) before its connection is given up and
   * destroyed: a connection whose database side is gone (a partition that outlived the session)
   * would otherwise hang every request that draws it. With the queue's wait it stays below the
   * SQL port's 10 s deadline, so the endpoint answers before its client gives up.
   */
  queryTimeoutMillis?: number;
}

// Every type, arrays included, comes back as the text Postgres sent: the Neon client parses it.
const asText = (value: string) => value;
const RAW_TEXT = { getTypeParser: () => asText };

// pg's QueryConfig typing lacks queryMode; "extended" makes pg prepare even with no values.
// Without it pg sends parameterless text over the simple protocol, which runs
// "SELECT 1; DROP TABLE x" as two statements, where Neon refuses it (42601).
type ExtendedQuery = pg.QueryArrayConfig & { queryMode: "extended" };

/** A pooled client, the connection generation it was opened in, and whether its connection ended. */
type Client = pg.PoolClient & { generation?: number; processID?: number; ended?: boolean };

/** A client kept between requests goes back to the pool after this long unused. */
const KEPT_IDLE_MS = 10_000;

/** An idle connection is probed by TCP keepalive after this long: a vanished server is noticed. */
const KEEPALIVE_DELAY_MS = 10_000;

export function createPgBackend(connectionString: string, options: PgBackendOptions = {}): SqlBackend {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 20,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 4_000,
    idleTimeoutMillis: 10_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    // pg then rejects the query ("Query read timeout"): not a PostgresError, so its connection
    // counts as broken and is destroyed (finish), never pooled again.
    query_timeout: options.queryTimeoutMillis ?? 5_000,
  });
  // An idle client dying (server restart) is reported here; unhandled it would crash the
  // process. The pool drops that client and the next checkout connects afresh.
  pool.on("error", () => {});
  // The same for a checked-out client (the pool listens only while it is idle): its next query
  // then fails with a plain Error, and that client is destroyed on release.
  pool.on("connect", (client: Client) => {
    client.generation = generation;
    client.on("error", () => {});
    client.on("end", () => {
      client.ended = true;
    });
  });
  let closed = false;
  // Bumped when a connection breaks: every idle client opened before is suspect (a restarted or
  // unreachable server kills them all) and is discarded at its next checkout instead of used.
  let generation = 0;

  // Clean clients kept checked out between requests, the most recent last: taking one from
  // pg-pool costs a tick, two timers and listeners, ~30 µs of a round trip that the endpoint
  // should barely add to. They go back to the pool when a request waits there, after
  // KEPT_IDLE_MS unused, and at close; the pool's bound still counts them.
  const kept: { client: Client; since: number }[] = [];
  const sweep = setInterval(() => {
    while (kept.length > 0 && Date.now() - (kept[0]?.since ?? 0) > KEPT_IDLE_MS) kept.shift()?.client.release();
  }, KEPT_IDLE_MS / 2);
  sweep.unref();

  async function checkout(signal: AbortSignal | undefined): Promise<Client> {
    for (;;) {
      if (closed) throw new NotStartedError("the PostgreSQL backend is closed");
      if (signal?.aborted) throw new NotStartedError("the request was abandoned before it started");
      let client = kept.pop()?.client;
      if (!client) {
        try {
          client = (await pool.connect()) as Client;
        } catch (error) {
          // Even a server-sent refusal (unknown database, too many clients) is not the statement's
          // fault: nothing ran, which the endpoint answers 503, never a PostgresError.
          throw new NotStartedError(`could not connect to PostgreSQL: ${errorMessage(error)}`);
        }
      }
      if (client.generation === generation && !client.ended && !signal?.aborted) return client;
      client.release(true);
    }
  }

  /** A clean client: kept for the next request unless one is waiting in the pool for it. */
  function keep(client: Client): void {
    if (closed || client.ended || pool.waitingCount > 0) client.release();
    else kept.push({ client, since: Date.now() });
  }

  /**
   * Back to the pool after Neon's reset; a broken connection, or one left in a transaction, is
   * destroyed. The reset (one more round trip for the server) runs only after statements that
   * can change the session; plain reads and writes leave nothing behind.
   */
  function finish(client: Client, broken: boolean, dirty: boolean): void {
    if (broken || client.getTransactionStatus() !== "I") {
      if (broken) generation++;
      client.release(true);
      return;
    }
    if (!dirty) {
      keep(client);
      return;
    }
    // Not awaited: the answer goes out while the connection resets.
    client.query(RESET_SESSION).then(
      () => client.release(),
      (error: unknown) => client.release(error instanceof Error ? error : true),
    );
  }

  /** Runs `work` on a connection; an abandoned request cancels its statement. */
  async function withClient<T>(
    signal: AbortSignal | undefined,
    statements: Statement[] | "script",
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    const client = await checkout(signal);
    const onAbort = new CancelOnAbort(connectionString, client.processID);
    signal?.addEventListener("abort", onAbort, { once: true });
    let broken = false;
    let failed = false;
    try {
      return await work(client);
    } catch (error) {
      failed = true;
      broken = !(error instanceof PostgresError) || isFatal(error);
      throw error;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      // A cancelled connection is discarded, as Neon discards one whose client went away.
      if (onAbort.cancelled) client.release(true);
      // After a Postgres error Neon drops the connection; here it is reset (cheaper, same effect:
      // an autocommit statement that failed left nothing but possible session state).
      else finish(client, broken, failed || statements === "script" || statements.some(mayChangeSession));
    }
  }

  return {
    kind: "postgres",

    query: (statement, signal) => withClient(signal, [statement], (client) => run(client, statement)),

    batch: (statements, batchOptions, signal) =>
      withClient(signal, statements, async (client) => {
        try {
          return await runInTransaction(client, statements, batchOptions);
        } catch (error) {
          // A connection that stopped answering is destroyed, not rolled back: ROLLBACK would wait
          // behind the statement it never answered.
          if (!(error instanceof PostgresError)) throw error;
          // A client whose rollback failed is in an unknown state: it must not be pooled.
          const failed = await rollback(client);
          if (failed) throw new Error(`rollback failed: ${failed.message}`, { cause: error });
          throw error;
        }
      }),

    exec: (script) =>
      withClient(undefined, "script", async (client) => {
        try {
          await client.query(script); // no values: the simple protocol, several statements allowed
        } catch (error) {
          // A failing "BEGIN; …; COMMIT" script leaves its transaction open and aborted.
          const failed = await rollback(client);
          if (failed) throw new Error(`rollback failed: ${failed.message}`, { cause: error });
          throw error instanceof pg.DatabaseError ? toPostgresError(error) : error;
        }
      }),

    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweep);
      for (const { client } of kept.splice(0)) client.release();
      await pool.end();
    },
  };
}

/** An abort listener (an object, not a closure: one is made per request) that cancels `pid`'s statement. */
class CancelOnAbort {
  cancelled = false;

  constructor(
    private readonly connectionString: string,
    private readonly pid: number | undefined,
  ) {}

  handleEvent(): void {
    this.cancelled = true;
    void cancelBackend(this.connectionString, this.pid);
  }
}

/** Asks the server to cancel what connection `pid` runs, over a connection of its own. */
async function cancelBackend(connectionString: string, pid: number | undefined): Promise<void> {
  if (!pid) return;
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT pg_cancel_backend($1)", [pid]);
  } catch {
    // The connection is discarded anyway; a server that cannot be reached runs nothing new.
  } finally {
    await client.end().catch(() => {});
  }
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
