// Traces, in OpenTelemetry's API only: which SDK records and exports them is the runtime's
// (edge/telemetry/). Contexts are handed on explicitly, never through an active context, so the
// same code runs where no context manager exists (Workers, Compute).
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { fieldValue } from "../http/field-value.ts";
import { isRecognizedMethod } from "../http/methods.ts";
import { ProblemError } from "../http/problem.ts";
import { aroundEachKvCall } from "../ports/around-each-call.ts";
import type { KvCache } from "../ports/kv.ts";
import { DatabaseError, type Row, type Sql, type SqlStatement } from "../ports/sql.ts";
import { describeStatement } from "./statement.ts";

/** What a runtime hands to core when tracing is on. */
export interface Telemetry {
  tracer: Tracer;
  /** Reads W3C `traceparent` (and `tracestate`) from a request's headers. */
  propagator: TextMapPropagator;
  /** Sends what is recorded now, within the exporter's bounds; never rejects. */
  flush(): Promise<void>;
  /**
   * Where no timer may outlive an invocation (Workers, Compute): the export a response's spans
   * leave in, for its `waitUntil`, or none when a response before it already holds that export
   * alive; never rejects. Elsewhere (Node, Deno) the exporter's own timer sends batches, and this
   * is not set.
   */
  afterResponse?(): Promise<void> | undefined;
}

/** The parts of a request that `Server-Timing` names too, each a child span. */
export type TracedPart = "auth" | "limit";

const PART_SPANS: Record<TracedPart, string> = { auth: "token check", limit: "rate limit count" };

const headerGetter = {
  keys: (headers: Headers) => [...headers.keys()],
  get: fieldValue,
};

/** The caller's trace, when the request carries a valid `traceparent`; a new one otherwise. */
export const callerContext = (telemetry: Telemetry, headers: Headers): Context =>
  telemetry.propagator.extract(ROOT_CONTEXT, headers, headerGetter);

/** Runs `work` as a span under `parent`, ended when it settles, an error recorded on it. */
export async function inSpan<T>(
  telemetry: Telemetry,
  parent: Context,
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  const span = telemetry.tracer.startSpan(name, { attributes, kind }, parent);
  try {
    return await work(span);
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Marks a span failed with the error's type only, never its message (a message may quote what a
 * caller sent): a statement Postgres refused by its SQLSTATE (`23505`), also as
 * `db.response.status_code` (the database conventions' rule); a refusal the API answers by its
 * problem code (`unauthorized`, `rate_limited`); anything else by its class.
 */
export function failed(span: Span, error: unknown): void {
  const type = errorType(error);
  if (error instanceof DatabaseError) span.setAttribute("db.response.status_code", error.code);
  span.setAttribute("error.type", type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

function errorType(error: unknown): string {
  if (error instanceof DatabaseError && error.code) return error.code;
  if (error instanceof ProblemError) return error.code;
  return error instanceof Error ? error.name : "Error";
}

/** Token check or rate-limit count, as a child of `parent`. */
export const tracedPart =
  (telemetry: Telemetry, parent: Context) =>
  <T>(part: TracedPart, work: () => Promise<T>): Promise<T> =>
    inSpan(telemetry, parent, PART_SPANS[part], {}, work);

/**
 * The SQL port with each call (one round trip: a statement, or a transaction's statements sent
 * together) a client span under `parent`: `db.system.name` postgresql, the statement's operation
 * and table, never its text or parameters.
 */
export function tracedSql(sql: Sql, telemetry: Telemetry, parent: Context): Sql {
  return {
    query: <T extends Row = Row>(text: string, params?: readonly unknown[]) =>
      inSpan(telemetry, parent, ...statementSpan([{ text }]), () => sql.query<T>(text, params), SpanKind.CLIENT),
    transaction: (statements, options) =>
      inSpan(
        telemetry,
        parent,
        ...statementSpan(statements),
        () => sql.transaction(statements, options),
        SpanKind.CLIENT,
      ),
  };
}

/**
 * A round trip's span name and attributes, as the database conventions write them: a batch of
 * one operation is `BATCH <it>` (`BATCH INSERT`), of several `BATCH`; a batch of one statement is
 * that statement.
 */
export function statementSpan(statements: readonly SqlStatement[]): [string, Attributes] {
  const described = statements.map((statement) => describeStatement(statement.text));
  const tables = [...new Set(described.flatMap((d) => (d.table ? [d.table] : [])))];
  const operations = new Set(described.map((d) => d.operation));
  const operation =
    described.length === 1
      ? described[0]!.operation
      : operations.size === 1
        ? `BATCH ${described[0]!.operation}`
        : "BATCH";
  const attributes: Attributes = {
    "db.system": "postgresql",
    "db.system.name": "postgresql",
    "db.operation.name": operation,
    ...(tables.length === 1 ? { "db.collection.name": tables[0] } : {}),
    ...(described.length !== 1 ? { "db.operation.batch.size": described.length } : {}),
  };
  return [tables.length === 1 ? `${operation} ${tables[0]}` : operation, attributes];
}

/** The KV port with each call a span under `parent`, named by its method; keys are not recorded. */
export function tracedKv(kv: KvCache, telemetry: Telemetry, parent: Context): KvCache {
  return aroundEachKvCall(kv, (call, method) =>
    inSpan(telemetry, parent, `kv ${method}`, { "kv.operation": method }, call),
  );
}

/**
 * A server span for a request, continuing the caller's trace; and the context its children go under.
 * Named by its method until the route is known (`HTTP` for a method the conventions do not know).
 */
export function startServerSpan(telemetry: Telemetry, request: Request): { span: Span; context: Context } {
  const parent = callerContext(telemetry, request.headers);
  const attributes = requestAttributes(request);
  const span = telemetry.tracer.startSpan(spanMethod(attributes), { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/**
 * What the HTTP server conventions ask for at a span's start: the method, the URL's scheme and
 * the server's name and port (the port only when it is not the scheme's own, which the URL parser
 * leaves out). Not `url.path`: it names the account, the asset or the document asked for, as a KV
 * key would (http.route stands for it).
 */
export function requestAttributes(request: Request): Attributes {
  const method = request.method;
  const attributes: Attributes = isRecognizedMethod(method)
    ? { "http.request.method": method }
    : { "http.request.method": "_OTHER", "http.request.method_original": method };
  const url = parsedUrl(request.url);
  if (!url) return attributes;
  attributes["url.scheme"] = url.protocol.slice(0, -1);
  // An IPv6 address without its brackets: `[::1]` is `::1`.
  if (url.hostname !== "") attributes["server.address"] = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (url.port !== "") attributes["server.port"] = Number(url.port);
  return attributes;
}

/** Every runtime hands an absolute URL; anything else adds nothing to a span. */
function parsedUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** The method as a span's name holds it: `HTTP` for one the conventions do not know. */
export const spanMethod = (attributes: Attributes): string =>
  attributes["http.request.method"] === "_OTHER" ? "HTTP" : String(attributes["http.request.method"]);

/**
 * A span's trace in a log line, by the names OpenTelemetry gives it in a log outside OTLP ("Trace
 * Context in non-OTLP Log Formats"), which log backends join a line to its trace by; none without.
 */
export function traceLogFields(span: SpanContext | undefined): Record<string, string> {
  if (!span) return {};
  const { traceId, spanId, traceFlags } = span;
  return { trace_id: traceId, span_id: spanId, trace_flags: traceFlags.toString(16).padStart(2, "0") };
}

/** A background run's own trace: never a request's child. */
export function startRootSpan(telemetry: Telemetry, name: string): { span: Span; context: Context } {
  const span = telemetry.tracer.startSpan(name, { kind: SpanKind.INTERNAL, root: true }, ROOT_CONTEXT);
  return { span, context: trace.setSpan(ROOT_CONTEXT, span) };
}
