// What a traced request leaves behind: its log lines name its trace and span, and its spans follow
// OpenTelemetry's conventions.
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { createApp } from "../../core/app.ts";
import type { BackgroundJob } from "../../core/background/job.ts";
import { createBackground } from "../../core/background/runner.ts";
import { type Logger, silentLogger } from "../../core/log.ts";
import { DatabaseError, DatabaseUnavailableError, type Sql } from "../../core/ports/sql.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { bearer } from "../../dev/support/tokens.ts";
import { keptExports } from "../../test/support/kept-exports.ts";
import { oneLink, PARENT_SPAN_ID, TRACE_ID, TRACED } from "../../test/support/traced-app.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { createTelemetry } from "./telemetry.ts";

describe("log lines", () => {
  /** Telemetry whose exports and log lines are kept, for `sampler`. */
  function recorded(sampler: string) {
    const { exports, send } = keptExports();
    const settings = parseSettings({ ...TRACED, OTEL_TRACES_SAMPLER: sampler });
    const telemetry = createTelemetry(settings, { runtime: "node", logger: silentLogger, fetch: send })!;
    const lines: Record<string, unknown>[] = [];
    const logger: Logger = { log: (_level, event, fields) => void lines.push({ event, ...fields }) };
    const deps = { sql: oneLink, kv: createMemoryKv(), settings, logger, telemetry };
    const lineOf = (event: string) => lines.find((line) => line.event === event)!;
    return { deps, exported: () => exports.flat(), lineOf };
  }

  /** The request's log line for a lookup sent with `traceparent`, and the spans exported for it. */
  async function lookUp(sampler: string, traceparent: string) {
    const { deps, exported, lineOf } = recorded(sampler);
    const app = createApp({ ...deps, runtime: "node" });
    const response = await app.request("/v1/links/github/1", { headers: { ...(await bearer()), traceparent } });
    expect(response.status).toBe(200);
    await deps.telemetry.flush();
    return { line: lineOf("request"), exported: exported() };
  }

  it("name the request's trace and server span as OpenTelemetry names them outside OTLP", async () => {
    const { line, exported } = await lookUp("parentbased_always_on", `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`);
    const server = exported.find((span) => span.kind === 2)!;
    expect(server).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_SPAN_ID });
    expect(line).toMatchObject({ trace_id: TRACE_ID, span_id: server.spanId, trace_flags: "01" });
  });

  it("name the caller's trace for a request the sampler leaves out, flagged not sampled", async () => {
    const { line, exported } = await lookUp("parentbased_always_on", `00-${TRACE_ID}-${PARENT_SPAN_ID}-00`);
    expect(exported).toEqual([]);
    expect(line).toMatchObject({
      trace_id: TRACE_ID,
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      trace_flags: "00",
    });
    expect(line.span_id).not.toBe(PARENT_SPAN_ID);
  });

  it("name the request's trace in its warning, its failed statement's span beneath its own", async () => {
    const { deps, exported, lineOf } = recorded("parentbased_always_on");
    const unreachable = async (): Promise<never> => {
      throw new DatabaseUnavailableError("connection refused");
    };
    const app = createApp({ ...deps, sql: { query: unreachable, transaction: unreachable }, runtime: "node" });
    const response = await app.request("/v1/links/github/1", { headers: await bearer() });
    expect(response.status).toBe(503);
    await deps.telemetry.flush();
    const spans = exported();
    const server = spans.find((span) => span.kind === 2)!;
    expect(spans.find((span) => span.name.startsWith("SELECT "))?.parentSpanId).toBe(server.spanId);
    expect(lineOf("database_unavailable")).toMatchObject({
      requestId: response.headers.get("x-request-id"),
      trace_id: server.traceId,
      span_id: server.spanId,
    });
  });

  it("name a failed background job's span, which holds what failed", async () => {
    const { deps, exported, lineOf } = recorded("parentbased_always_on");
    const fails: BackgroundJob = {
      name: "test/fails",
      cadence: "every-run",
      run: async ({ sql }) => {
        await sql.query("SELECT 1 FROM linked_external_accounts");
        throw new Error("refused");
      },
    };
    await createBackground(deps, { jobs: [fails] }).run();
    await deps.telemetry.flush();
    const spans = exported();
    const job = spans.find((span) => span.name === "job test/fails")!;
    expect(spans.find((span) => span.name === "SELECT linked_external_accounts")?.parentSpanId).toBe(job.spanId);
    expect(lineOf("background_job_failed")).toMatchObject({
      job: "test/fails",
      trace_id: job.traceId,
      span_id: job.spanId,
      trace_flags: "01",
    });
  });
});

describe("a request's spans", () => {
  /** The app over `sql`, with what it exported and logged for the requests it served, flushed. */
  function traced(sql: Sql = oneLink) {
    const { exports, send } = keptExports();
    const settings = parseSettings(TRACED);
    const telemetry = createTelemetry(settings, { runtime: "node", logger: silentLogger, fetch: send })!;
    const lines: Record<string, unknown>[] = [];
    const logger: Logger = { log: (_level, event, fields) => void lines.push({ event, ...fields }) };
    const app = createApp({ sql, kv: createMemoryKv(), settings, logger, telemetry, runtime: "node" });
    /** The request's answer, its server span and its children, and its log line. */
    const serve = async (path: string | Request, init: RequestInit = {}) => {
      const response = await app.request(path, init);
      await telemetry.flush();
      const requestId = response.headers.get("x-request-id");
      const line = lines.find((entry) => entry.event === "request" && entry.requestId === requestId)!;
      const spans = exports.flat().filter((span) => span.traceId === line.trace_id);
      const server = spans.find((span) => span.kind === SpanKind.SERVER + 1)!;
      return { status: response.status, line, server, children: spans.filter((span) => span !== server) };
    };
    return { serve };
  }

  it("name the SDK in their resource, as the resource conventions require", async () => {
    const { server } = await traced().serve("/healthz");
    expect(server.resource).toMatchObject({
      "telemetry.sdk.name": "opentelemetry",
      "telemetry.sdk.language": "nodejs",
      "telemetry.sdk.version": expect.stringMatching(/^\d+\.\d+\.\d+/),
      "process.runtime.name": "nodejs",
    });
  });

  it("name a request by its route in the span and in the log line alike, when a middleware answered for it", async () => {
    const { serve } = traced();
    // The token check refuses.
    const refused = await serve("/v1/documents");
    expect(refused.status).toBe(401);
    expect(refused.server.name).toBe("GET /v1/documents");
    expect(refused.server.attributes["http.route"]).toBe("/v1/documents");
    expect(refused.line.route).toBe("/v1/documents");
    // Its span says why, by the problem's code.
    expect(refused.children.find((span) => span.name === "token check")?.attributes["error.type"]).toBe("unauthorized");
    // Of two patterns that match the path, the one that answers: the import's 405, not /v1/assets/:id.
    const notAllowed = await serve("/v1/assets/import", { headers: await bearer() });
    expect(notAllowed.status).toBe(405);
    expect([notAllowed.server.name, notAllowed.line.route]).toEqual(["GET /v1/assets/import", "/v1/assets/import"]);
    // No route matched: the method alone.
    const nowhere = await serve("/nowhere");
    expect(nowhere.status).toBe(404);
    expect(nowhere.server.name).toBe("GET");
    expect(nowhere.server.attributes).not.toHaveProperty("http.route");
  });

  it("record the URL's scheme and the server's name and port, and a method the conventions do not know as _OTHER", async () => {
    const { serve } = traced();
    const known = await serve("http://api.example.com:8787/healthz");
    expect(known.server.attributes).toMatchObject({
      "http.request.method": "GET",
      "url.scheme": "http",
      "server.address": "api.example.com",
      "server.port": 8787,
    });
    const other = await serve("/v1/documents", { method: "PROPFIND" });
    expect(other.status).toBe(501);
    expect(other.server.name).toBe("HTTP /v1/documents");
    expect(other.server.attributes).toMatchObject({
      "http.request.method": "_OTHER",
      "http.request.method_original": "PROPFIND",
      "http.response.status_code": 501,
      "error.type": "501",
    });
  });

  it("keep at most 256 characters of what a client sends as its host or its method", async () => {
    const { serve } = traced();
    const host = `${"a".repeat(60)}.`.repeat(1_000);
    const method = "X".repeat(60_000);
    const sent = await serve(new Request(`http://${host}example/v1/documents`, { method }));
    expect(sent.status).toBe(501);
    expect(sent.server.attributes["server.address"]).toBe(host.slice(0, 256));
    expect(sent.server.attributes["http.request.method_original"]).toBe(method.slice(0, 256));
  });

  it("make each statement a client span, a refused one named by its SQLSTATE, the 5xx it caused an error", async () => {
    const refused = async (): Promise<never> => {
      throw new DatabaseError("duplicate key value violates unique constraint", { code: "23505" });
    };
    const { serve } = traced({ query: refused, transaction: refused });
    const { status, server, children } = await serve("/v1/links/github/1", { headers: await bearer() });
    expect(status).toBe(500);
    expect(server.attributes).toMatchObject({ "http.response.status_code": 500, "error.type": "500" });
    expect(server.status.code).toBe(SpanStatusCode.ERROR);
    const statement = children.find((span) => span.attributes["db.system.name"])!;
    expect(statement.kind).toBe(SpanKind.CLIENT + 1);
    expect(statement.attributes).toMatchObject({ "error.type": "23505", "db.response.status_code": "23505" });
    expect(statement.status.code).toBe(SpanStatusCode.ERROR);
    // The port's other spans stay the service's own.
    for (const span of children.filter((child) => !child.attributes["db.system.name"])) {
      expect(span.kind, span.name).toBe(SpanKind.INTERNAL + 1);
    }
  });
});
