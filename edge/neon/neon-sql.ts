import { neon, neonConfig, NeonDbError } from "@neondatabase/serverless";
import {
  DatabaseError,
  DatabaseUnavailableError,
  type Row,
  type Sql,
  type SqlStatement,
  type TransactionOptions,
} from "../../core/ports/sql.ts";

export interface NeonSqlOptions {
  databaseUrl: string;
  /** Where the driver posts instead of Neon's own endpoint, e.g. http://127.0.0.1:4444/sql. */
  fetchEndpoint?: string;
  /** Replaces `fetch` for every Neon request (Fastly sends them to a named backend). */
  fetchFunction?: typeof fetch;
  /** Each round trip is abandoned after this long and reported as unavailable. */
  timeoutMs?: number;
}

export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

// The driver's endpoint and fetch settings are process-wide. Keying endpoints by the connection
// string's host:port lets several databases (several test stacks) live in one process.
const endpointsByHost = new Map<string, string>();
neonConfig.fetchEndpoint = (host, port) =>
  endpointsByHost.get(`${host}:${port}`) ?? `https://${host.replace(/^[^.]+\./, "api.")}/sql`;

/** The SQL port over Neon's stateless HTTP driver: one HTTP round trip per call. */
export function createNeonSql(options: NeonSqlOptions): Sql {
  const url = new URL(options.databaseUrl);
  if (options.fetchEndpoint) endpointsByHost.set(`${url.hostname}:${url.port}`, options.fetchEndpoint);
  if (options.fetchFunction) neonConfig.fetchFunction = options.fetchFunction;
  const timeoutMs = options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const driver = neon(options.databaseUrl);
  const fetchOptions = () => ({ signal: AbortSignal.timeout(timeoutMs) });

  return {
    async query<T extends Row = Row>(text: string, params: readonly unknown[] = []) {
      try {
        return (await driver.query(text, [...params], { fetchOptions: fetchOptions() })) as T[];
      } catch (error) {
        throw toPortError(error);
      }
    },
    async transaction(statements: readonly SqlStatement[], options: TransactionOptions = {}) {
      try {
        const queries = statements.map((s) => driver.query(s.text, [...(s.params ?? [])]));
        return (await driver.transaction(queries, { ...options, fetchOptions: fetchOptions() })) as Row[][];
      } catch (error) {
        throw toPortError(error);
      }
    },
  };
}

/** Postgres' refusals keep their SQLSTATE; everything else means the database was not reached. */
export function toPortError(error: unknown): Error {
  if (error instanceof NeonDbError && error.code) {
    return new DatabaseError(error.message, {
      code: error.code,
      constraint: error.constraint,
      detail: error.detail,
      table: error.table,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new DatabaseUnavailableError(`Database request failed: ${reason}`, { cause: error });
}
