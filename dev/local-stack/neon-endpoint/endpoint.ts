// A local stand-in for Neon's SQL-over-HTTP proxy: the @neondatabase/serverless driver the SQL
// port runs on (edge/neon/), pointed here with neonConfig.fetchEndpoint, cannot tell the
// difference. Requests (request.ts) and answers follow Neon's proxy
// (proxy/src/serverless/sql_over_http.rs); the database is whatever backend it was started
// with, whichever database the connection string names.
import {
  type BatchOptions,
  ERROR_FIELDS,
  type FieldInfo,
  NotStartedError,
  PostgresError,
  type PostgresErrorFields,
  type QueryResult,
  type SqlBackend,
} from "./backend.ts";
import { type EndpointAnswer, type EndpointRequest, listenHttp } from "./http-server.ts";
import { pgTextToJson } from "./json-values.ts";
import { refuseStatement } from "./refused-statements.ts";
import {
  type Credentials,
  connectionChecker,
  HttpError,
  type NeonHeaders,
  parsePayload,
  readBody,
  readHeaders,
} from "./request.ts";

interface NeonEndpointOptions {
  backend: SqlBackend;
  /** 0 (default) picks a free port. */
  port?: number;
  /** A loopback address (default 127.0.0.1): the endpoint is never reachable from elsewhere. */
  host?: string;
  /** Largest request body accepted (default 10 MiB, like Neon). */
  maxBodyBytes?: number;
  /** Largest answer sent (default 10 MiB, like Neon): a bigger one is refused with 507. */
  maxResponseBytes?: number;
  /** What the connection string must carry (see Credentials). */
  credentials?: Credentials;
  /** Browser origins answered with CORS (exact match); none by default, never "*". */
  allowedOrigins?: readonly string[];
  /** Holds every request this long before serving it: the network between an edge and Neon. */
  roundTripDelayMs?: number;
}

export interface NeonEndpoint {
  /** What neonConfig.fetchEndpoint is set to: http://127.0.0.1:PORT/sql */
  url: string;
  port: number;
  /** Statements handed to the backend since start or the last reset (a batch of 3 counts 3). */
  statements(): number;
  resetStatements(): void;
  /** Stops listening; the backend stays open (its owner closes it). */
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const MIB10 = 10 * 1024 * 1024;
// What a browser may send to /sql once its origin is allowed: the driver's own headers.
const CORS_ALLOWED_HEADERS =
  "Neon-Connection-String, Neon-Raw-Text-Output, Neon-Array-Mode, Neon-Pool-Opt-In, Neon-Batch-Isolation-Level, " +
  "Neon-Batch-Read-Only, Neon-Batch-Deferrable, Authorization, Content-Type";

export async function startNeonEndpoint(options: NeonEndpointOptions): Promise<NeonEndpoint> {
  const { backend } = options;
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host)) throw new Error(`the Neon-compatible endpoint listens on loopback only, not ${host}`);
  const maxBodyBytes = options.maxBodyBytes ?? MIB10;
  const maxResponseBytes = options.maxResponseBytes ?? MIB10;
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  let statements = 0;
  let port = 0;
  const checkConnection = connectionChecker(options.credentials);

  /** Runs what the request asks, once the request is known to be allowed and well formed. */
  async function answer(req: EndpointRequest) {
    const headers = readHeaders(req, checkConnection);
    const payload = parsePayload(readBody(req, maxBodyBytes));
    const queries = Array.isArray(payload) ? payload : [payload];
    for (const query of queries) refuseStatement(query.query);
    statements += queries.length;
    if (Array.isArray(payload)) {
      const results = await backend.batch(payload, headers.batch, req.signal);
      const shaped = results.map((result, i) => shape(result, headers, payload[i]?.arrayMode));
      return { body: { results: shaped }, headers: batchHeaders(headers.batch) };
    }
    return { body: shape(await backend.query(payload, req.signal), headers, payload.arrayMode), headers: {} };
  }

  // A client going away before its answer aborts req.signal, which cancels its statement, as
  // Neon's proxy does.
  async function serve(req: EndpointRequest): Promise<EndpointAnswer> {
    if (!allowedHosts.has(req.headers.host?.toLowerCase() ?? "")) throw new HttpError(403, "host not allowed");
    const cors = corsHeaders(req.headers.origin, allowedOrigins);
    const path = req.url.split("?")[0];
    if (path !== "/sql") throw new HttpError(404, "not found");
    if (req.method === "OPTIONS") return { status: 204, headers: { ...cors, ...preflightHeaders() } };
    if (req.method !== "POST") throw new HttpError(405, "method not allowed: only POST /sql");
    const result = await answer(req);
    const text = JSON.stringify(result.body);
    if (Buffer.byteLength(text) > maxResponseBytes) {
      throw new HttpError(507, `response is too large (max is ${maxResponseBytes} bytes)`);
    }
    return jsonAnswer(200, text, { ...cors, ...result.headers });
  }

  const hold = roundTripHold(options.roundTripDelayMs);
  const server = await listenHttp(
    (req) =>
      hold(() => serve(req)).catch((error: unknown) =>
        errorAnswer(error, corsHeaders(req.headers.origin, allowedOrigins, false)),
      ),
    {
      host,
      port: options.port ?? 0,
      maxBodyBytes,
      // Outliving the clients' own idle timeouts (fetch's 4 s) lets them close first: a server
      // closing an idle socket races a client reusing it (ECONNRESET, seen as 503 under load).
      keepAliveMs: 65_000,
    },
  );
  port = server.port;
  // Only names of this machine (DNS rebinding: a page on evil.example resolving to 127.0.0.1).
  const allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}/sql`,
    port,
    statements: () => statements,
    resetStatements: () => void (statements = 0),
    close: () => server.close(), // in-flight requests finish and are answered
  };
}

/**
 * Neon answers browsers with CORS; here only listed origins get it, echoed, never "*". A request
 * from any other origin is refused before it runs.
 */
function corsHeaders(origin: string | undefined, allowed: Set<string>, refuse = true): Record<string, string> {
  if (origin === undefined) return {};
  if (!allowed.has(origin)) {
    if (refuse) throw new HttpError(403, "origin not allowed");
    return {};
  }
  return { "Access-Control-Allow-Origin": origin, Vary: "Origin" };
}

function preflightHeaders(): Record<string, string> {
  return {
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": CORS_ALLOWED_HEADERS,
    "Access-Control-Max-Age": "86400",
  };
}

/** Runs `serve` after the round trip's delay, or at once when there is none. */
function roundTripHold(delayMs = 0): <T>(serve: () => Promise<T>) => Promise<T> {
  if (delayMs <= 0) return (serve) => serve();
  return (serve) => new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(serve);
}

/** Neon's per-statement answer: rows as arrays or as objects, values raw text or JSON-typed. */
function shape(result: QueryResult, headers: NeonHeaders, arrayMode = headers.arrayMode) {
  const { fields } = result;
  // Raw text arrays (what Neon's clients ask for) are the rows as they came.
  const values = headers.rawOutput
    ? result.rows
    : result.rows.map((row) => row.map((text, i) => typed(text, fields[i])));
  const rows = arrayMode
    ? values
    : values.map((row) => Object.fromEntries(row.map((value, i) => [fields[i]?.name ?? String(i), value])));
  return { fields, rows, command: result.command, rowCount: result.rowCount, rowAsArray: arrayMode };
}

function typed(text: string | null, field: FieldInfo | undefined): unknown {
  return text === null ? null : pgTextToJson(text, field?.dataTypeID ?? 0);
}

/** Neon echoes a batch's transaction options in the response headers. */
function batchHeaders(batch: BatchOptions): Record<string, string> {
  const out: Record<string, string> = {};
  if (batch.isolationLevel) out["Neon-Batch-Isolation-Level"] = batch.isolationLevel;
  if (batch.readOnly) out["Neon-Batch-Read-Only"] = "true";
  if (batch.deferrable) out["Neon-Batch-Deferrable"] = "true";
  return out;
}

/**
 * Postgres errors → 400 with every field (the driver's NeonDbError copies them); our refusals →
 * their status; nothing started (no connection, queue wait over) → 503, which promises nothing
 * was written; anything else (a connection lost mid-statement: outcome unknown) → 500. Always
 * JSON: the driver JSON-parses a 400 and would otherwise throw a bare SyntaxError.
 */
function errorAnswer(error: unknown, headers: Record<string, string>): EndpointAnswer {
  const fields: PostgresErrorFields =
    error instanceof PostgresError ? error.fields : { message: error instanceof Error ? error.message : String(error) };
  const status =
    error instanceof PostgresError
      ? 400
      : error instanceof HttpError
        ? error.status
        : error instanceof NotStartedError
          ? 503
          : 500;
  const body: Record<string, string | null> = { message: fields.message };
  for (const key of ERROR_FIELDS) body[key] = fields[key] ?? null;
  return jsonAnswer(status, JSON.stringify(body), status === 405 ? { ...headers, Allow: "POST, OPTIONS" } : headers);
}

function jsonAnswer(status: number, body: string, headers: Record<string, string>): EndpointAnswer {
  return { status, headers: { "Content-Type": "application/json", ...headers }, body };
}
