import { NeonDbError, neon, neonConfig } from "@neondatabase/serverless";
import {
  DatabaseError,
  DatabaseOutcomeUnknownError,
  DatabaseUnavailableError,
  type Row,
  type Sql,
  type SqlStatement,
  type TransactionOptions,
} from "../../core/ports/sql.ts";
import { type Settings, SettingsError } from "../../core/settings.ts";

interface NeonSqlOptions {
  databaseUrl: string;
  /** Where the driver posts instead of Neon's own endpoint, e.g. http://127.0.0.1:4444/sql. */
  fetchEndpoint?: string;
  /** Replaces `fetch` for every Neon request (Fastly sends them to a named backend). */
  fetchFunction?: typeof fetch;
  /** Each round trip is abandoned after this long and reported as unavailable. */
  timeoutMs?: number;
}

const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

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
  const redact = redactor(options.databaseUrl);

  return {
    async query<T extends Row = Row>(text: string, params: readonly unknown[] = []) {
      try {
        return (await driver.query(text, [...params], { fetchOptions: fetchOptions() })) as T[];
      } catch (error) {
        throw toPortError(error, redact);
      }
    },
    async transaction(statements: readonly SqlStatement[], options: TransactionOptions = {}) {
      try {
        const queries = statements.map((s) => driver.query(s.text, [...(s.params ?? [])]));
        return (await driver.transaction(queries, { ...options, fetchOptions: fetchOptions() })) as Row[][];
      } catch (error) {
        throw toPortError(error, redact);
      }
    },
  };
}

/** The SQL port a runtime builds from its settings: without DATABASE_URL it cannot start. */
export function neonSqlFromSettings(settings: Settings, options: Pick<NeonSqlOptions, "fetchFunction"> = {}): Sql {
  if (!settings.databaseUrl) throw new SettingsError("DATABASE_URL", "is not set");
  return createNeonSql({ databaseUrl: settings.databaseUrl, fetchEndpoint: settings.neonFetchEndpoint, ...options });
}

// SQLSTATEs that mean "not now, and nothing was done": connection exceptions, too many
// connections / out of resources, a server shutting down or starting up, and a statement the
// database stopped and rolled back (statement or lock timeout, cancel, deadlock, serialization
// failure, read-only) — each is worth retrying, and each rolled its statement back.
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0|57014|55P03|40001|40P01|25006)/;

// A request that never left: nothing listens, the name does not resolve, the connect timed out.
const NOT_SENT = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|UND_ERR_CONNECT|connection refused|connect error|bad port/i;

/**
 * Postgres' refusals keep their SQLSTATE; transient ones, and a request that never reached the
 * database, mean "nothing written" (unavailable). When the request may have reached it and no
 * answer came (timeout, reset, a gateway's error page), the outcome is unknown. Messages end up
 * in logs, so the connection string and its password are blanked out of them; the driver's raw
 * error is not kept as the cause.
 */
export function toPortError(error: unknown, redact: (text: string) => string = (text) => text): Error {
  const reason = redact(`Database request failed: ${error instanceof Error ? error.message : String(error)}`);
  if (error instanceof NeonDbError && error.code) {
    if (UNAVAILABLE_SQLSTATE.test(error.code)) return new DatabaseUnavailableError(reason);
    return new DatabaseError(redact(error.message), {
      code: error.code,
      constraint: error.constraint,
      detail: error.detail === undefined ? undefined : redact(error.detail),
      table: error.table,
    });
  }
  // The endpoint's 503 promises that nothing was started.
  if (error instanceof NeonDbError && /^Server error \(HTTP status 503\)/.test(error.message)) {
    return new DatabaseUnavailableError(reason);
  }
  if (error instanceof NeonDbError && neverSent(error.sourceError)) return new DatabaseUnavailableError(reason);
  return new DatabaseOutcomeUnknownError(reason);
}

function neverSent(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  const code = (error as { code?: unknown }).code;
  if (NOT_SENT.test(`${typeof code === "string" ? code : ""} ${error.message}`)) return true;
  const errors = error instanceof AggregateError ? error.errors : [];
  return neverSent(error.cause, depth + 1) || errors.some((inner) => neverSent(inner, depth + 1));
}

/** Blanks the connection string and its password (as written and decoded) out of a text. */
function redactor(databaseUrl: string): (text: string) => string {
  const { password } = new URL(databaseUrl);
  const secrets = [databaseUrl, password, safeDecode(password)].filter((secret) => secret.length > 0);
  return (text) => secrets.reduce((out, secret) => out.replaceAll(secret, "[redacted]"), text);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
