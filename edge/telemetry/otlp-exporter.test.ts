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

function exporterOver(send: typeof fetch, timeoutMs = 1_000, options = { settings }) {
  const lines: [LogLevel, string, Record<string, unknown> | undefined][] = [];
  const logger = {
    log: (level: LogLevel, event: string, fields?: Record<string, unknown>) => lines.push([level, event, fields]),
  };
  return { exporter: new OtlpFetchExporter({ ...options, logger, fetch: send, timeoutMs }), lines };
}

const exportNothing = (exporter: OtlpFetchExporter) =>
  new Promise<number>((done) => exporter.export([], (result) => done(result.code)));

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
      { settings: settingsFor(protocol) },
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
});
