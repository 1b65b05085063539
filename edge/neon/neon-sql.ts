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
import { DEFAULT_TIMEOUT_MS, type NeonHttp, type NeonPost, NeonQueryError, neonHttp } from "./neon-http.ts";

interface NeonSqlOptions {
  databaseUrl: string;
  /** Where requests go instead of Neon's own endpoint, e.g. http://127.0.0.1:4444/sql. */
  fetchEndpoint?: string;
  /** Replaces `fetch` for every Neon request (Fastly sends them to a named backend). */
  fetchFunction?: typeof fetch;
  /** Sends every Neon request instead of `fetch` (Node's own HTTP client). */
  post?: NeonPost;
  /** Each round trip is abandoned after this long and reported as unavailable. */
  timeoutMs?: number;
}

/** The SQL port over Neon's stateless HTTP protocol (./neon-http.ts): one HTTP round trip per call. */
export function createNeonSql(options: NeonSqlOptions): Sql {
  const neon = connect(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const redact = redactor(options.databaseUrl);

  return {
    async query<T extends Row = Row>(text: string, params: readonly unknown[] = []) {
      try {
        return (await neon.query(text, params, timeoutMs)) as T[];
      } catch (error) {
        throw toPortError(error, redact);
      }
    },
    async transaction(statements: readonly SqlStatement[], options: TransactionOptions = {}) {
      try {
        return await neon.transaction(statements, options, timeoutMs);
      } catch (error) {
        throw toPortError(error, redact);
      }
    },
  };
}

/** A connection string Neon would refuse on every request is refused once, by its setting's name. */
function connect(options: NeonSqlOptions): NeonHttp {
  try {
    return neonHttp(options);
  } catch {
    throw new SettingsError("DATABASE_URL", "must be postgres://user[:password]@host/database");
  }
}

/** The SQL port a runtime builds from its settings: without DATABASE_URL it cannot start. */
export function neonSqlFromSettings(
  settings: Settings,
  options: Pick<NeonSqlOptions, "fetchFunction" | "post"> = {},
): Sql {
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
 * in logs, so the connection string and its password are blanked out of them; the client's raw
 * error is not kept as the cause.
 */
export function toPortError(error: unknown, redact: (text: string) => string = (text) => text): Error {
  const reason = redact(`Database request failed: ${error instanceof Error ? error.message : String(error)}`);
  if (!(error instanceof NeonQueryError)) return new DatabaseOutcomeUnknownError(reason);
  if (error.code) {
    if (UNAVAILABLE_SQLSTATE.test(error.code)) return new DatabaseUnavailableError(reason);
    return new DatabaseError(redact(error.message), {
      code: error.code,
      constraint: error.constraint,
      detail: error.detail === undefined ? undefined : redact(error.detail),
      table: error.table,
    });
  }
  // The endpoint's 503 promises that nothing was started; so does a request that never left.
  if (error.status === 503 || neverSent(error.sourceError)) return new DatabaseUnavailableError(reason);
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
