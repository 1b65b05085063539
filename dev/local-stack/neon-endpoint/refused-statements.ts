// Statements the local endpoint refuses before they reach the database: COPY, as Neon's proxy
// does, and whatever could change the role requests run as. PGlite is one session authenticated as
// its superuser, and requests run under SET SESSION AUTHORIZATION of the app's role: PostgreSQL
// lets that session become the superuser again (SET SESSION AUTHORIZATION, DISCARD ALL,
// set_config('session_authorization', …)), so the endpoint must never pass such a statement on.
// On PostgreSQL the endpoint logs in as the app's role, and the server refuses them itself.
import { PostgresError } from "./backend.ts";

/**
 * COPY, however it is introduced. Neon's proxy has no COPY sub-protocol over HTTP and refuses it;
 * locally it would hang a PostgreSQL connection or spin PGlite. (COPY cannot hide inside another
 * statement: PL/pgSQL refuses COPY to or from the client.)
 */
const COPY = /^(?:\s|;|\(|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*copy\b/i;

/**
 * Words that name the role or the session's authorization anywhere in a statement (SET ROLE,
 * RESET ROLE, SET SESSION AUTHORIZATION, SET "role", set_config('role', …), ALTER ROLE … SET):
 * matched as words, so no comment, spacing, case or quoting between or around them hides them.
 * `current_role`, `pg_roles` and `rolname` are other words and pass.
 */
const ROLE_WORDS = new Set(["role", "authorization", "session_authorization"]);

/**
 * What can run SQL text assembled at run time, where no word of it shows in the statement:
 * PL/pgSQL's EXECUTE (in DO or a function), and the functions that run a query given as text.
 */
const DYNAMIC_SQL_WORDS = new Set([
  "execute",
  "query_to_xml",
  "query_to_xmlschema",
  "query_to_xml_and_xmlschema",
  "ts_stat",
  "ts_rewrite",
]);

/** set_config with its name as a plain literal; any other first argument is refused. */
const SET_CONFIG_LITERAL = /^\s*\(\s*'[a-z0-9_.]+'\s*,/;

/** Refuses, with a Postgres error, a statement the endpoint does not pass on. */
export function refuseStatement(query: string): void {
  if (COPY.test(query)) {
    throw new PostgresError({ message: "COPY is not supported over HTTP", code: "0A000", severity: "ERROR" });
  }
  const reason = roleChange(query);
  if (reason) {
    throw new PostgresError({
      message: `permission denied: ${reason}; requests to the local endpoint run as the app's role and cannot change it`,
      code: "42501",
      severity: "ERROR",
    });
  }
}

/** Why `query` could change the role it runs as, or undefined. Refusing too much is fine here. */
function roleChange(query: string): string | undefined {
  // Identifiers lose their quotes ("ROLE" and "role" are the same word here); U&"…" and U&'…'
  // could spell any word with escapes, so they are refused outright.
  const text = query.toLowerCase();
  if (/u&\s*["']/.test(text)) return "Unicode escapes are not accepted";
  const words = text.replaceAll('"', "").split(/[^\w$]+/);
  if (words.some((word) => ROLE_WORDS.has(word))) return "the role or the session authorization is not set here";
  if (words.includes("discard") && words.includes("all")) return "DISCARD ALL would reset the session authorization";
  if (words.some((word) => DYNAMIC_SQL_WORDS.has(word))) return "SQL assembled at run time is not run here";
  const unquoted = text.replaceAll('"', "");
  for (const at of matchIndexes(unquoted, /\bset_config\b/g)) {
    if (!SET_CONFIG_LITERAL.test(unquoted.slice(at + "set_config".length))) {
      return "set_config takes its name as a plain literal here";
    }
  }
  return undefined;
}

function matchIndexes(text: string, pattern: RegExp): number[] {
  return [...text.matchAll(pattern)].map((match) => match.index ?? 0);
}
