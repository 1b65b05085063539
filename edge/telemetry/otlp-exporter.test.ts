import { ExportResultCode } from "@opentelemetry/core";
import { describe, expect, it } from "vitest";
import type { LogLevel } from "../../core/log.ts";
import { OtlpFetchExporter } from "./otlp-exporter.ts";

const settings = { url: "http://127.0.0.1:1/v1/traces", headers: { "x-api-key": "k" } };

function exporterOver(send: typeof fetch, timeoutMs = 1_000) {
  const lines: [LogLevel, string, Record<string, unknown> | undefined][] = [];
  const logger = {
    log: (level: LogLevel, event: string, fields?: Record<string, unknown>) => lines.push([level, event, fields]),
  };
  return { exporter: new OtlpFetchExporter({ settings, logger, fetch: send, timeoutMs }), lines };
}

const exportNothing = (exporter: OtlpFetchExporter) =>
  new Promise<number>((done) => exporter.export([], (result) => done(result.code)));

describe("the OTLP exporter", () => {
  it("posts OTLP JSON with the configured headers", async () => {
    const sent: RequestInit[] = [];
    const { exporter } = exporterOver(async (_url, init) => {
      sent.push(init!);
      return new Response("{}");
    });
    expect(await exportNothing(exporter)).toBe(ExportResultCode.SUCCESS);
    expect(sent[0]!.headers).toEqual({ "x-api-key": "k", "content-type": "application/json" });
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
