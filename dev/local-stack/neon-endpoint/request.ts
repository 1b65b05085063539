// What a request to Neon's SQL-over-HTTP proxy carries, read and checked as Neon's proxy does
// (proxy/src/serverless/sql_over_http.rs): its headers, the connection string's login, and the
// body's statements with their parameters as Postgres text.
import { timingSafeEqual } from "node:crypto";
import { type BatchOptions, type IsolationLevel, PostgresError, type Statement } from "./backend.ts";
import type { EndpointRequest } from "./http-server.ts";

/** An answer other than 200, with Neon's message for it. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** One statement of the body, with the array mode it may ask for itself. */
export interface Query extends Statement {
  arrayMode?: boolean;
}

/** What Neon's headers ask: values as raw text or typed, rows as arrays, a batch's transaction. */
export interface NeonHeaders {
  rawOutput: boolean;
  arrayMode: boolean;
  batch: BatchOptions;
}

const ISOLATION_LEVELS: readonly IsolationLevel[] = [
  "ReadUncommitted",
  "ReadCommitted",
  "RepeatableRead",
  "Serializable",
];

/**
 * What the connection string must carry, as Neon checks it: the password (required when set),
 * the role and the database. Unset parts are not checked (the endpoint's own unit tests).
 */
export interface Credentials {
  password: string;
  user?: string;
  database?: string;
}

/** Neon's request headers. The connection string is checked, never logged nor used to route. */
export function readHeaders(req: EndpointRequest, checkConnection: (value: string | undefined) => void): NeonHeaders {
  checkConnection(req.headers["neon-connection-string"]);
  const level = req.headers["neon-batch-isolation-level"];
  if (level !== undefined && !ISOLATION_LEVELS.includes(level as IsolationLevel)) {
    throw new HttpError(400, "invalid isolation level");
  }
  // "true" is true; anything else is false, as on Neon.
  return {
    rawOutput: req.headers["neon-raw-text-output"] === "true",
    arrayMode: req.headers["neon-array-mode"] === "true",
    batch: {
      isolationLevel: level as IsolationLevel | undefined,
      // Neon only ever adds READ ONLY / DEFERRABLE; "false" leaves the server defaults.
      readOnly: req.headers["neon-batch-read-only"] === "true" || undefined,
      deferrable: req.headers["neon-batch-deferrable"] === "true" || undefined,
    },
  };
}

/**
 * checkConnectionString, remembering the last string it accepted: a client sends the same one
 * with every request, and parsing and comparing it costs more than the rest of the checks.
 */
export function connectionChecker(credentials: Credentials | undefined): (value: string | undefined) => void {
  let accepted: string | undefined;
  return (value) => {
    if (value !== undefined && value === accepted) return;
    checkConnectionString(value, credentials);
    accepted = value;
  };
}

/** `postgres(ql)://user[:password]@host/db`, as Neon requires; messages never echo the value. */
function checkConnectionString(value: string | undefined, credentials: Credentials | undefined): void {
  if (!value) throw new HttpError(400, "missing connection string");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new HttpError(400, "invalid connection string: relative URL without a base");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") throw new HttpError(400, "incorrect scheme");
  if (!url.hostname) throw new HttpError(400, "missing hostname");
  if (!url.username) throw new HttpError(400, "missing username");
  if (url.pathname.length <= 1) throw new HttpError(400, "missing database name");
  if (!credentials) return;
  const user = decodeURIComponent(url.username);
  if (!url.password) throw neonLoginRefusal("missing authentication credentials: required password");
  // Neon's proxy checks the login itself: its refusal has no SQLSTATE and names the user in
  // single quotes, whether the password is wrong or the role unknown; the value sent is never echoed.
  const refused = () => neonLoginRefusal(`password authentication failed for user '${user}'`);
  if (!sameSecret(decodeURIComponent(url.password), credentials.password)) throw refused();
  if (credentials.user !== undefined && user !== credentials.user) throw refused();
  const database = decodeURIComponent(url.pathname.slice(1));
  if (credentials.database !== undefined && database !== credentials.database) {
    throw new PostgresError({ message: `database "${database}" does not exist`, code: "3D000", severity: "FATAL" });
  }
}

/** A login Neon's proxy refuses: HTTP 400, `code` and `severity` empty, every other field null. */
function neonLoginRefusal(message: string): PostgresError {
  return new PostgresError({ message, code: "", severity: "" });
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The body, bounded: past the limit it was drained, not kept, and is answered 413 as Neon does. */
export function readBody(req: EndpointRequest, limit: number): string {
  if (!req.body) throw new HttpError(413, `request is too large (max is ${limit} bytes)`);
  return req.body.toString("utf8");
}

/** `{query, params}` → one statement; `{queries: [...]}` → a batch. */
export function parsePayload(body: string): Query | Query[] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new HttpError(400, `could not parse the HTTP request body: ${(error as Error).message}`);
  }
  if (isObject(json) && typeof json.query === "string") return toQuery(json);
  if (isObject(json) && Array.isArray(json.queries)) {
    return json.queries.map((q) => (isObject(q) && typeof q.query === "string" ? toQuery(q) : badShape()));
  }
  return badShape();
}

function toQuery(json: Record<string, unknown>): Query {
  const params = json.params ?? [];
  if (!Array.isArray(params)) return badShape();
  const arrayMode = typeof json.arrayMode === "boolean" ? json.arrayMode : undefined;
  return { query: json.query as string, params: params.map(toPgText), arrayMode };
}

function badShape(): never {
  throw new HttpError(400, "could not parse the HTTP request body: expected {query, params} or {queries: [...]}");
}

/** JSON parameters become Postgres text, as Neon converts them (arrays → array literals). */
function toPgText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return toPgArray(value);
  return JSON.stringify(value);
}

function toPgArray(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (Array.isArray(value)) return `{${value.map(toPgArray).join(",")}}`;
  if (typeof value === "object") return JSON.stringify(JSON.stringify(value)); // quoted JSON text
  return JSON.stringify(value); // strings quoted and escaped, numbers and booleans bare
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
