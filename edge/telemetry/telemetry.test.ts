// OTEL_TRACES_SAMPLER and its ratio: read like every setting, and each the SDK's own sampler.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from "@opentelemetry/api";
import { SamplingDecision } from "@opentelemetry/sdk-trace";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../core/app.ts";
import type { BackgroundJob } from "../../core/background/job.ts";
import { createBackground } from "../../core/background/runner.ts";
import { type Logger, silentLogger } from "../../core/log.ts";
import { DatabaseError, DatabaseUnavailableError, type Sql } from "../../core/ports/sql.ts";
import { parseSettings, SettingsError } from "../../core/settings/settings.ts";
import { bearer, TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { keptExports } from "../../test/support/kept-exports.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { BATCH_DELAY_MS, createTelemetry, samplerOf, type TelemetryParts } from "./telemetry.ts";

// Nothing listens there; no span these cases record is ever sent (nothing is flushed).
const TRACED = { AUTH_SECRET: TEST_AUTH_SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" };
const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";

const PARENT_SPAN_ID = "b7ad6b7169203331";

/** A database that holds one link, github/1, and takes no write. */
const oneLink: Sql = {
  query: async () =>
    [
      {
        tenant_id: "acme",
        provider: "github",
        external_account_id: "1",
        user_id: "alice",
        linked_at: new Date(0),
        display_name: null,
      },
    ] as never,
  transaction: async () => [],
};

const traces = (raw: Record<string, string>) => parseSettings({ ...TRACED, ...raw }).traces!;

/** What `sampler` decides for a new span, under a parent that chose `parentSampled`, or none. */
function decision(raw: Record<string, string>, parentSampled?: boolean): SamplingDecision {
  const parent =
    parentSampled === undefined
      ? ROOT_CONTEXT
      : trace.setSpanContext(ROOT_CONTEXT, {
          traceId: TRACE_ID,
          spanId: PARENT_SPAN_ID,
          traceFlags: parentSampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
          isRemote: true,
        });
  return samplerOf(traces(raw)).shouldSample(parent, TRACE_ID, "GET /healthz", SpanKind.SERVER, {}, []).decision;
}

describe("OTEL_TRACES_SAMPLER", () => {
  it("is parentbased_always_on with a ratio of 1 when unset, as OpenTelemetry's SDKs default", () => {
    expect(traces({})).toMatchObject({ sampler: "parentbased_always_on", samplerRatio: 1 });
    expect(decision({})).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decision({}, false)).toBe(SamplingDecision.NOT_RECORD);
  });

  it("keeps a trace by its ratio, and a parent-based sampler follows the caller's choice first", () => {
    expect(decision({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" })).toBe(
      SamplingDecision.NOT_RECORD,
    );
    expect(decision({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1" })).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
    const parentBased = { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" };
    expect(decision(parentBased)).toBe(SamplingDecision.NOT_RECORD);
    expect(decision(parentBased, true)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decision({ OTEL_TRACES_SAMPLER: "always_on" }, false)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decision({ OTEL_TRACES_SAMPLER: "always_off" }, true)).toBe(SamplingDecision.NOT_RECORD);
    expect(decision({ OTEL_TRACES_SAMPLER: "parentbased_always_off" }, true)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decision({ OTEL_TRACES_SAMPLER: "parentbased_always_off" })).toBe(SamplingDecision.NOT_RECORD);
  });

  it("is the tracer's: a span it leaves out records nothing", () => {
    const settings = parseSettings({ ...TRACED, OTEL_TRACES_SAMPLER: "always_off" });
    const telemetry = createTelemetry(settings, { runtime: "node", logger: silentLogger })!;
    const span = telemetry.tracer.startSpan("GET /healthz");
    expect(span.isRecording()).toBe(false);
    span.end();
  });

  it("leaves out a request's children with it: none is started, and the answer is the same", async () => {
    const startedWith = async (sampler: string) => {
      const settings = parseSettings({ ...TRACED, OTEL_TRACES_SAMPLER: sampler });
      const telemetry = createTelemetry(settings, { runtime: "node", logger: silentLogger })!;
      const names: string[] = [];
      const { tracer } = telemetry;
      const counted = {
        ...telemetry,
        tracer: Object.assign(Object.create(tracer), {
          startSpan: (...args: Parameters<typeof tracer.startSpan>) => (names.push(args[0]), tracer.startSpan(...args)),
        }),
      };
      const app = createApp({
        sql: oneLink,
        kv: createMemoryKv(),
        settings,
        runtime: "node",
        logger: silentLogger,
        telemetry: counted,
      });
      const response = await app.request("/v1/links/github/1", { headers: await bearer() });
      return { names, status: response.status, body: await response.json() };
    };
    const kept = await startedWith("always_on");
    const left = await startedWith("always_off");
    expect(kept.names).toEqual(expect.arrayContaining(["GET", "token check", "kv get"]));
    expect(left.names).toEqual(["GET"]);
    expect(left.status).toBe(200);
    expect([left.status, left.body]).toEqual([kept.status, kept.body]);
  });

  it.each([
    ["OTEL_TRACES_SAMPLER", "jaeger_remote"],
    ["OTEL_TRACES_SAMPLER", "AlwaysOn"],
    ["OTEL_TRACES_SAMPLER_ARG", "1.5"],
    ["OTEL_TRACES_SAMPLER_ARG", "-0.1"],
    ["OTEL_TRACES_SAMPLER_ARG", "one tenth"],
    ["OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"],
    ["OTEL_EXPORTER_OTLP_PROTOCOL", "http/xml"],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "https://user:s3cret@otlp.example.com"],
  ])("refuses %s=%s with one line naming the setting, not its value", (name, value) => {
    const parse = () => parseSettings({ ...TRACED, [name]: value });
    expect(parse).toThrow(SettingsError);
    expect(parse).toThrow(new RegExp(`^${name} must be `));
    expect(parse).not.toThrow(value);
  });

  it("reads a ratio written as a decimal from 0 to 1", () => {
    for (const [written, ratio] of [
      ["0.1", 0.1],
      [".25", 0.25],
      ["1.0", 1],
      ["0", 0],
    ] as const)
      expect(traces({ OTEL_TRACES_SAMPLER_ARG: written }).samplerRatio).toBe(ratio);
  });

  it("sends JSON unless OTEL_EXPORTER_OTLP_PROTOCOL asks for protobuf", () => {
    expect(traces({}).protocol).toBe("http/json");
    expect(traces({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }).protocol).toBe("http/protobuf");
  });
});

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

describe("after a response", () => {
  afterEach(() => void vi.useRealTimers());

  /** Telemetry whose exports are counted: the names of the spans in each, in order. */
  function exportsOf(afterResponse: TelemetryParts["afterResponse"]) {
    const { exports, send } = keptExports();
    const telemetry = createTelemetry(parseSettings(TRACED), {
      runtime: "cloudflare",
      logger: silentLogger,
      fetch: send,
      afterResponse,
    })!;
    const respond = (name: string) => {
      telemetry.tracer.startSpan(name).end();
      return telemetry.afterResponse!();
    };
    const names = () => exports.map((spans) => spans.map((span) => span.name));
    return { names, respond };
  }

  it("sends one batch for every response that ends while it is open, held by the first (Workers), the next in another", async () => {
    vi.useFakeTimers();
    const { names, respond } = exportsOf("shared-batch");
    const first = respond("one");
    expect(first).toBeInstanceOf(Promise);
    await vi.advanceTimersByTimeAsync(BATCH_DELAY_MS / 2);
    // The first response holds the batch alive: the second hands its platform nothing to wait for.
    expect(respond("two")).toBeUndefined();
    expect(names()).toEqual([]);
    await vi.advanceTimersByTimeAsync(BATCH_DELAY_MS / 2);
    await first;
    expect(names()).toEqual([["one", "two"]]);
    const third = respond("three");
    expect(third).toBeInstanceOf(Promise);
    await vi.advanceTimersByTimeAsync(BATCH_DELAY_MS);
    await third;
    expect(names()).toEqual([["one", "two"], ["three"]]);
  });

  it("sends each response's own spans at once where no timer may be left behind (Compute)", async () => {
    const { names, respond } = exportsOf("own-spans");
    await respond("one");
    await respond("two");
    expect(names()).toEqual([["one"], ["two"]]);
  });

  it("is not set where the SDK's own timer sends batches (Node, Deno)", () => {
    const telemetry = createTelemetry(parseSettings(TRACED), { runtime: "node", logger: silentLogger })!;
    expect(telemetry.afterResponse).toBeUndefined();
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
