// What the Neon driver throws, as the SQL port's errors (core/ports/sql.ts). The driver throws
// NeonDbError for everything it got an answer to: a Postgres refusal (HTTP 400, its fields
// copied), another status ("Server error (HTTP status N): body"), and a request that got no
// answer ("Error connecting to database: …", what fetch threw in `sourceError`).
import { NeonDbError } from "@neondatabase/serverless";
import { errorCauses } from "../../core/log.ts";
import { DatabaseError, DatabaseOutcomeUnknownError, DatabaseUnavailableError } from "../../core/ports/sql.ts";
import { SettingsError } from "../../core/settings/settings.ts";

// SQLSTATEs that mean "not now, and nothing was done": connection exceptions, too many
// connections / out of resources, a server starting up or refusing sessions, and a statement the
// database stopped and rolled back (statement or lock timeout, cancel, deadlock, serialization
// failure, read-only) — each is worth retrying, and each rolled its statement back.
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0|57014|55P03|40001|40P01|25006)/;

// SQLSTATEs that say the outcome is unknown: transaction_resolution_unknown (08007, in the
// otherwise retryable connection class) and statement_completion_unknown (40003); and a session
// ended under its statement (admin_shutdown 57P01, crash_shutdown 57P02), which may come after
// the commit: a crash's exit waits for nothing, a shutdown's waits out the commit, not the answer.
const UNKNOWN_OUTCOME_SQLSTATE = /^(08007|40003|57P01|57P02)$/;

// A login the database refused: invalid authorization (28000, 28P01) or no such database (3D000).
const LOGIN_REFUSED_SQLSTATE = /^(28|3D000$)/;

// Neon's proxy refuses a login itself, without a SQLSTATE (`code: ""`): a wrong password or an
// unknown role, or a connection string without a password.
const NEON_LOGIN_REFUSAL = /^(password authentication failed for user|missing authentication credentials)/;

// A request that never left: nothing listens, the name does not resolve, the connect timed out.
// Deno's fetch names no code: its "client error (Connect)" covers the connect phase (a name that
// does not resolve, a refused or timed-out connection, a failed TLS handshake).
const NOT_SENT =
  /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|UND_ERR_CONNECT|connection refused|connect error|bad port|client error \(Connect\)/i;

// The same on Fastly Compute, whose `fetch` rejects with a NetworkError DOMException carrying the
// platform's send error (js-compute's FastlySendError::message): no address, a backend Fastly holds
// unhealthy, no connection, no TLS session. "Connection terminated" and the response's errors may
// follow a request that arrived; Viceroy gives none of these, only a bare NetworkError.
const COMPUTE_NOT_SENT =
  /^(DNS timeout|DNS error|Destination (not found|unavailable|IP unroutable)|Connection (refused|timeout|limit reached)|TLS (certificate|configuration) error)/;

const HTTP_STATUS = /^Server error \(HTTP status (\d+)\)/;

/**
 * Postgres' refusals keep their SQLSTATE; transient ones, and a request that never reached the
 * database, mean "nothing written" (unavailable). A refused login is the connection string's
 * fault, on every request alike: the DATABASE_URL setting is named. When the request may have
 * reached the database and no answer came (timeout, reset, a gateway's error page), the outcome
 * is unknown. Messages end up in logs, so the connection string and its password are blanked out
 * of them; the driver's raw error is not kept as the cause.
 */
export function toPortError(error: unknown, redact: (text: string) => string = (text) => text): Error {
  // The driver keeps what fetch threw as `sourceError`, whose causes say why ("connect ECONNREFUSED …").
  const message = error instanceof Error ? error.message : String(error);
  const causes = errorCauses(error instanceof NeonDbError ? error.sourceError : error);
  const reason = redact(`Database request failed: ${message}${causes}`);
  if (!(error instanceof NeonDbError)) return new DatabaseOutcomeUnknownError(reason);
  if (isLoginRefusal(error)) return loginRefused(error);
  if (error.code) {
    if (UNKNOWN_OUTCOME_SQLSTATE.test(error.code)) return new DatabaseOutcomeUnknownError(reason);
    if (UNAVAILABLE_SQLSTATE.test(error.code)) return new DatabaseUnavailableError(reason);
    return new DatabaseError(redact(error.message), {
      code: error.code,
      constraint: error.constraint,
      detail: error.detail === undefined ? undefined : redact(error.detail),
      table: error.table,
    });
  }
  // The endpoint's 503 promises that nothing was started; so does a request that never left.
  if (httpStatus(error) === 503 || neverSent(error.sourceError)) return new DatabaseUnavailableError(reason);
  return new DatabaseOutcomeUnknownError(reason);
}

function isLoginRefusal(error: NeonDbError): boolean {
  return error.code ? LOGIN_REFUSED_SQLSTATE.test(error.code) : NEON_LOGIN_REFUSAL.test(error.message);
}

/** The setting named, and why, never its value: the user's name stays out of the message. */
function loginRefused(error: NeonDbError): SettingsError {
  const why = error.code ? `SQLSTATE ${error.code}` : error.message.replace(/ for user .*$/s, "");
  return new SettingsError("DATABASE_URL", `was refused by the database at login (${why})`);
}

function httpStatus(error: Error): number | undefined {
  const status = HTTP_STATUS.exec(error.message)?.[1];
  return status === undefined ? undefined : Number(status);
}

function neverSent(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  const code = (error as { code?: unknown }).code;
  if (NOT_SENT.test(`${typeof code === "string" ? code : ""} ${error.message}`)) return true;
  if (COMPUTE_NOT_SENT.test(error.message)) return true;
  const errors = error instanceof AggregateError ? error.errors : [];
  return neverSent(error.cause, depth + 1) || errors.some((inner) => neverSent(inner, depth + 1));
}

/** Blanks the connection string and its password (as written and decoded) out of a text. */
export function redactor(databaseUrl: string): (text: string) => string {
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
