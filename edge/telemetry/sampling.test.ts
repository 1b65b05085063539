// OTEL_TRACES_SAMPLER and its ratio: read like every setting, and each the SDK's own sampler; the
// exporter's protocol.
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from "@opentelemetry/api";
import { SamplingDecision } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import { parseSettings, SettingsError } from "../../core/settings/settings.ts";
import { bearer } from "../../dev/support/tokens.ts";
import { oneLink, PARENT_SPAN_ID, TRACE_ID, TRACED } from "../../test/support/traced-app.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { createTelemetry, samplerOf } from "./telemetry.ts";

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
