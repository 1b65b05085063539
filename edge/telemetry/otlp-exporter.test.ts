import { ExportResultCode } from "@opentelemetry/core";
import { type ReadableSpan, TracerProvider } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import type { LogLevel } from "../../core/log.ts";
import type { OtlpProtocol } from "../../core/telemetry/settings.ts";
import { OtlpFetchExporter } from "./otlp-exporter.ts";

const settingsFor = (protocol: OtlpProtocol) => ({
  url: "http://127.0.0.1:1/v1/traces",
  headers: { "x-api-key": "k" },
  protocol,
});
const settings = settingsFor("http/protobuf");

function exporterOver(send: typeof fetch, timeoutMs = 1_000, options = { settings, maxSendingSpans: 2_048 }) {
  const lines: [LogLevel, string, Record<string, unknown> | undefined][] = [];
  const logger = {
    log: (level: LogLevel, event: string, fields?: Record<string, unknown>) => lines.push([level, event, fields]),
  };
  return { exporter: new OtlpFetchExporter({ ...options, logger, fetch: send, timeoutMs }), lines };
}

const exportNothing = (exporter: OtlpFetchExporter) => exportSpans(exporter, []);

const exportSpans = (exporter: OtlpFetchExporter, spans: ReadableSpan[]) =>
  new Promise<number>((done) => exporter.export(spans, (result) => done(result.code)));

/** `count` ended spans (one span, repeated: the exporter holds them all the same). */
function endedSpans(count: number): ReadableSpan[] {
  const span = new TracerProvider().getTracer("test").startSpan("GET /healthz");
  span.end();
  return Array<ReadableSpan>(count).fill(span as unknown as ReadableSpan);
}

describe("the OTLP exporter", () => {
  it.each([
    ["http/protobuf", "application/x-protobuf", 0x0a], // field 1, length-delimited: the resource's spans
    ["http/json", "application/json", "{".charCodeAt(0)],
  ] as const)("posts OTLP %s as %s with the configured headers", async (protocol, contentType, firstByte) => {
    const sent: RequestInit[] = [];
    const { exporter } = exporterOver(
      async (_url, init) => {
        sent.push(init!);
        return new Response("");
      },
      1_000,
      { settings: settingsFor(protocol), maxSendingSpans: 2_048 },
    );
    const span = new TracerProvider().getTracer("test").startSpan("GET /healthz");
    span.end();
    const result = await new Promise<number>((done) =>
      exporter.export([span as unknown as ReadableSpan], (outcome) => done(outcome.code)),
    );
    expect(result).toBe(ExportResultCode.SUCCESS);
    expect(sent[0]!.headers).toEqual({ "x-api-key": "k", "content-type": contentType });
    const body = sent[0]!.body as Uint8Array;
    expect(body[0]).toBe(firstByte);
    expect(new TextDecoder().decode(body)).toContain("GET /healthz");
  });

  it("drops a batch the collector refuses, times out on, or cannot take, counting them in a warning", async () => {
    const refused = exporterOver(async () => new Response("", { status: 503 }));
    expect(await exportNothing(refused.exporter)).toBe(ExportResultCode.FAILED);
    expect(refused.lines).toEqual([["warn", "traces_dropped", expect.objectContaining({ droppedSoFar: 0 })]]);
    const slow = exporterOver(() => new Promise<Response>(() => {}), 50);
    const started = Date.now();
    expect(await exportNothing(slow.exporter)).toBe(ExportResultCode.FAILED);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(slow.lines[0]![2]!.error).toMatch(/no answer within 50 ms/);
  });

  it("sends at most maxSendingSpans at once: a batch past them is dropped at once, counted", async () => {
    let sends = 0;
    // A collector that takes the request and never answers: each export holds its spans until its deadline.
    const silent: typeof fetch = (_url, init) =>
      new Promise<Response>((_, reject) => {
        sends++;
        init!.signal!.addEventListener("abort", () => reject(init!.signal!.reason));
      });
    const { exporter, lines } = exporterOver(silent, 200, { settings, maxSendingSpans: 1_024 });
    const firstTwo = [exportSpans(exporter, endedSpans(512)), exportSpans(exporter, endedSpans(512))];
    expect(await exportSpans(exporter, endedSpans(1))).toBe(ExportResultCode.FAILED);
    expect(sends).toBe(2);
    expect(lines).toEqual([
      [
        "warn",
        "traces_dropped",
        expect.objectContaining({
          spans: 1,
          droppedSoFar: 1,
          error: expect.stringMatching(/1024 spans are being sent already/),
        }),
      ],
    ]);
    // Once those ended (dropped at their deadline), a batch is sent again.
    await Promise.all(firstTwo);
    expect(await exportSpans(exporter, endedSpans(512))).toBe(ExportResultCode.FAILED);
    expect(sends).toBe(3);
    expect(lines.at(-1)![2]!.error).toMatch(/no answer within 200 ms/);
  });
});
