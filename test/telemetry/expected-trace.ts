// What a traced request of the tour must leave in the collector and in the log: its server span
// continues the caller's trace, its children hang beneath it, its resource names the runtime, and
// its log line names its trace and span.
import { expect, type MockInstance } from "vitest";
import type { RuntimeName } from "../../dev/launchers/index.ts";
import { type CollectedSpan, SPAN_KIND_SERVER } from "../../dev/support/collector.ts";
import type { TourStep } from "../readme/tour.ts";

export interface TracedStep extends TourStep {
  traceId?: string;
  parentId?: string;
  traceState?: string;
}

/** OTLP's SPAN_KIND_CLIENT: a statement's round trip to the database. */
const SPAN_KIND_CLIENT = 3;

/** What each runtime's resource says of it, beside the service's settings. */
const RUNTIME_RESOURCE: Record<RuntimeName, Record<string, unknown>> = {
  node: { "process.runtime.name": "nodejs", "telemetry.sdk.language": "nodejs" },
  cloudflare: {
    "process.runtime.name": "workerd",
    "cloud.provider": "cloudflare",
    "cloud.platform": "cloudflare_workers",
    "telemetry.sdk.language": "webjs",
    // The version Cloudflare made of the deployment (the version metadata binding).
    "service.version": expect.stringMatching(/\S/),
  },
  deno: { "process.runtime.name": "deno", "telemetry.sdk.language": "nodejs" },
  fastly: {
    "process.runtime.name": "js-compute",
    "cloud.provider": "fastly",
    "cloud.platform": "fastly_compute",
    "telemetry.sdk.language": "webjs",
    // The service, its version and the POP, as Compute names them (Viceroy's stand-ins).
    "faas.name": expect.stringMatching(/\S/),
    "service.version": expect.stringMatching(/\S/),
    "cloud.region": expect.stringMatching(/\S/),
  },
};

/** Runtimes where no cloud is named: none of its attributes may appear. */
const NO_CLOUD: RuntimeName[] = ["node", "deno"];

/** One request's trace: its server span continues the step's traceparent, the rest are its children. */
export function expectTraceOf(step: TracedStep, spans: CollectedSpan[], runtime: RuntimeName): void {
  const trace = spans.filter((span) => span.traceId === step.traceId);
  const [root, ...more] = trace.filter((span) => span.kind === SPAN_KIND_SERVER);
  expect(root, `no server span for ${step.command}`).toBeDefined();
  expect(more).toEqual([]);
  expect(root!.parentSpanId).toBe(step.parentId);
  // The caller's tracestate, carried on by the request's every span.
  for (const span of trace) expect(span.traceState, span.name).toBe(step.traceState);
  expect(root!.name).toMatch(/^(GET|PUT|PATCH|POST|DELETE) \/v1\/[a-z]+(\/\{[A-Za-z]+\})*$/);
  expect(root!.attributes["http.route"]).toBe(root!.name.split(" ")[1]);
  expect(root!.resource).toMatchObject({
    "service.name": "tour",
    "service.instance.id": expect.stringMatching(/\S/),
    "edge.runtime": runtime,
    "deployment.environment.name": "test",
    "telemetry.sdk.name": "opentelemetry",
    "telemetry.sdk.version": expect.stringMatching(/^\d+\.\d+\.\d+/),
    ...RUNTIME_RESOURCE[runtime],
  });
  if (NO_CLOUD.includes(runtime))
    expect(Object.keys(root!.resource).filter((key) => /^(cloud|faas)\./.test(key))).toEqual([]);
  // The request's URL, but for its path: the scheme and the server it was sent to.
  expect(root!.attributes).toMatchObject({ "url.scheme": "http", "server.address": "127.0.0.1" });
  expect(root!.attributes).not.toHaveProperty("url.path");
  const children = trace.filter((span) => span !== root);
  for (const child of children) expect(child.parentSpanId, child.name).toBe(root!.spanId);
  expect(children.map((child) => child.name)).toContain("token check");
  // Both quotas' counts in one span.
  expect(children.filter((child) => child.name === "rate limit count")).toHaveLength(1);
  for (const db of children.filter((child) => child.attributes["db.system"])) {
    expect(db.kind, db.name).toBe(SPAN_KIND_CLIENT);
    expect(db.attributes).toMatchObject({
      "db.system": "postgresql",
      "db.system.name": "postgresql",
      "db.operation.name": expect.any(String),
    });
    expect(Object.keys(db.attributes).some((key) => /statement|query\.text|param/.test(key))).toBe(false);
  }
}

/** The request lines printed so far, whatever else was printed around them. */
export function requestLines(printed: MockInstance<typeof console.log>): Record<string, unknown>[] {
  return printed.mock.calls
    .flatMap(([text]) => String(text).split("\n"))
    .flatMap((line) => {
      try {
        const entry = JSON.parse(line.slice(line.indexOf("{")));
        return entry?.event === "request" ? [entry] : [];
      } catch {
        return [];
      }
    });
}

/** Each traced request's log line names its trace and its server span, as the collector has them. */
export async function expectLoggedWithTrace(
  steps: TracedStep[],
  spans: CollectedSpan[],
  printed: MockInstance<typeof console.log>,
): Promise<void> {
  const byTrace = () => new Map(requestLines(printed).map((line) => [line.trace_id, line]));
  await expect.poll(() => steps.every((step) => byTrace().has(step.traceId)), { timeout: 10_000 }).toBe(true);
  const lines = byTrace();
  for (const step of steps) {
    const server = spans.find((span) => span.traceId === step.traceId && span.kind === SPAN_KIND_SERVER)!;
    expect(lines.get(step.traceId), step.command).toMatchObject({ span_id: server.spanId, trace_flags: "01" });
  }
}
