// Neon's SQL-over-HTTP protocol, spoken as @neondatabase/serverless 1.2.0 speaks it for
// `sql.query(text, params)` and `sql.transaction(queries, options)` with rows as objects: the same
// request (only the application name differs) and the same values and errors back
// (test/local-stack/neon-wire.test.ts holds the two side by side). The driver bundles a whole
// Postgres client besides; on Fastly every byte of script is paid again in the memory snapshot.
import type { Row, SqlStatement, TransactionOptions } from "../../core/ports/sql.ts";
import { fromPgText, toPgParam } from "./pg-text.ts";

interface NeonHttpOptions {
  /** postgres(ql)://user[:password]@host/database */
  databaseUrl: string;
  /** Where to post instead of Neon's own endpoint for the host, e.g. http://127.0.0.1:4444/sql. */
  fetchEndpoint?: string;
  /** Replaces `fetch` (Fastly sends every request to a named backend). */
  fetchFunction?: typeof fetch;
  /** Sends each request instead of `fetch` (Node: over node:http, cheaper than its `fetch`). */
  post?: NeonPost;
}

/** What a request's answer must offer; a fetch Response does. */
export type NeonAnswer = Pick<Response, "status" | "text">;

/** An answer already read whole (a class, not a closure per answer). */
export class ReadAnswer implements NeonAnswer {
  constructor(
    readonly status: number,
    private readonly body: string,
  ) {}

  text(): Promise<string> {
    return Promise.resolve(this.body);
  }
}

/**
 * Sends one request: a POST of JSON text with Neon's headers. Without its whole answer within
 * `timeoutMs` it gives up (rejects, releasing what it holds): the deadline is the transport's, so
 * each keeps it as cheaply as it can (an AbortSignal costs ~10 µs of CPU in Node).
 */
export type NeonPost = (
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number },
) => Promise<NeonAnswer>;

export interface NeonHttp {
  query(text: string, params: readonly unknown[], timeoutMs?: number): Promise<Row[]>;
  transaction(statements: readonly SqlStatement[], options: TransactionOptions, timeoutMs?: number): Promise<Row[][]>;
}

/** How long a round trip may take by default: the driver's own deadline. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** The name this client gives itself in the connection string (pg_stat_activity), unless the string has one. */
const APPLICATION_NAME = "edge-race-free";

/** The fields of a Postgres error, in the order Neon answers them (HTTP 400) and the driver copies them. */
export const ERROR_FIELDS = [
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "severity",
  "where",
  "table",
  "column",
  "schema",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

type ErrorFields = Partial<Record<(typeof ERROR_FIELDS)[number], string>>;

/**
 * A refusal, with the driver's messages: Postgres' (its fields copied, absent ones undefined), a
 * status other than 200 or 400 ("Server error (HTTP status N): body"), or a request that got no
 * answer ("Error connecting to database: …", what fetch threw in `sourceError`).
 */
export class NeonQueryError extends Error {
  declare readonly code?: string;
  declare readonly constraint?: string;
  declare readonly detail?: string;
  declare readonly table?: string;
  /** The answer's HTTP status, when it was neither 200 nor 400. */
  declare readonly status?: number;
  declare readonly sourceError?: unknown;

  constructor(message: string, fields: ErrorFields & { status?: number; sourceError?: unknown } = {}) {
    super(message);
    this.name = "NeonQueryError";
    Object.assign(this, fields);
  }
}

interface StatementResult {
  fields: { name: string; dataTypeID: number }[];
  rows: (string | null)[][];
}

/** A client for one database; each call is one POST. Throws now for a connection string Neon would refuse. */
export function neonHttp(options: NeonHttpOptions): NeonHttp {
  const connection = resolveConnectionString(options.databaseUrl);
  const endpoint = options.fetchEndpoint ?? `https://${connection.hostname.replace(/^[^.]+\./, "api.")}/sql`;
  const headers = {
    "Neon-Connection-String": connection.text,
    "Neon-Raw-Text-Output": "true",
    "Neon-Array-Mode": "true",
  };

  const send: NeonPost = options.post ?? postOverFetch(options.fetchFunction ?? fetch);

  /** A batch's options add headers; a single statement sends the same headers object every time. */
  async function post(body: unknown, extraHeaders: Record<string, string> | undefined, timeoutMs: number) {
    let answer: NeonAnswer;
    try {
      const allHeaders = extraHeaders ? { ...headers, ...extraHeaders } : headers;
      answer = await send(endpoint, { headers: allHeaders, body: JSON.stringify(body), timeoutMs });
    } catch (error) {
      throw new NeonQueryError(`Error connecting to database: ${error}`, { sourceError: error });
    }
    const { status } = answer;
    if (status >= 200 && status < 300) return JSON.parse(await answer.text());
    if (status === 400) throw postgresError(JSON.parse(await answer.text()));
    throw new NeonQueryError(`Server error (HTTP status ${status}): ${await answer.text()}`, { status });
  }

  return {
    async query(text, params, timeoutMs = DEFAULT_TIMEOUT_MS) {
      return toRows((await post(toQuery(text, params), undefined, timeoutMs)) as StatementResult);
    },
    async transaction(statements, transactionOptions, timeoutMs = DEFAULT_TIMEOUT_MS) {
      const queries = statements.map((s) => toQuery(s.text, s.params ?? []));
      const answer = (await post({ queries }, batchHeaders(transactionOptions), timeoutMs)) as { results?: unknown };
      if (!Array.isArray(answer.results)) throw new NeonQueryError("Neon internal error: unexpected result format");
      return answer.results.map(toRows);
    },
  };
}

/** `fetch`, its whole answer read within the deadline. */
function postOverFetch(fetchFunction: typeof fetch): NeonPost {
  return (url, { headers, body, timeoutMs }) =>
    withDeadline(timeoutMs, async (signal) => {
      const response = await fetchFunction(url, { method: "POST", headers, body, signal });
      return new ReadAnswer(response.status, await response.text());
    });
}

/**
 * `call` with a signal that aborts after `ms` (a TimeoutError, as `AbortSignal.timeout`'s), its
 * timer ended with the call: on Fastly a timer still pending after a request keeps its instance
 * from serving the next one (js-compute ends it).
 */
export async function withDeadline<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(timeoutError()), ms);
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

export const timeoutError = () => new DOMException("The operation timed out.", "TimeoutError");

const toQuery = (query: string, params: readonly unknown[]) => ({ query, params: params.map(toPgParam) });

/** Only the options given: Neon's proxy otherwise keeps the server's defaults. */
function batchHeaders({ isolationLevel, readOnly, deferrable }: TransactionOptions): Record<string, string> {
  const out: Record<string, string> = {};
  if (isolationLevel !== undefined) out["Neon-Batch-Isolation-Level"] = isolationLevel;
  if (readOnly !== undefined) out["Neon-Batch-Read-Only"] = String(readOnly);
  if (deferrable !== undefined) out["Neon-Batch-Deferrable"] = String(deferrable);
  return out;
}

function toRows({ fields, rows }: StatementResult): Row[] {
  return rows.map((row) =>
    Object.fromEntries(
      row.map((text, i) => [fields[i]?.name, text === null ? null : fromPgText(text, fields[i]?.dataTypeID ?? 0)]),
    ),
  );
}

function postgresError(body: Record<string, unknown>): NeonQueryError {
  const fields: Record<string, unknown> = {};
  for (const name of ERROR_FIELDS) fields[name] = body[name] ?? undefined;
  return new NeonQueryError(body.message as string, fields as ErrorFields);
}

/**
 * The connection string as the driver sends it: reparsed as an http: URL (which normalizes it),
 * with an application name unless it has one, under the postgresql: scheme. Like Neon, it needs
 * a user, a host and a database.
 */
function resolveConnectionString(databaseUrl: string): { text: string; hostname: string } {
  const scheme = new URL(databaseUrl).protocol;
  const url = new URL(`http:${databaseUrl.slice(scheme.length)}`);
  if (!url.searchParams.has("application_name")) url.searchParams.append("application_name", APPLICATION_NAME);
  const valid =
    (scheme === "postgres:" || scheme === "postgresql:") &&
    url.username !== "" &&
    url.hostname !== "" &&
    url.hostname !== "-" &&
    url.pathname.length > 1;
  if (!valid) throw new TypeError("must be postgres://user[:password]@host/database");
  return { text: `postgresql:${url.href.slice(url.protocol.length)}`, hostname: url.hostname };
}
