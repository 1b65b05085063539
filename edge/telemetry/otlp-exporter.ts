// The span exporter every runtime uses: OTLP/HTTP, protobuf or JSON (OTEL_EXPORTER_OTLP_PROTOCOL),
// serialized by OpenTelemetry's own transformer, sent with the `fetch` the runtime hands it
// (Fastly: through a named backend).
// A collector that is down, refuses or is slow loses the batch, counted in one warning: a trace
// is never worth a retry queue that grows without bound. Nor are the exports under way: the SDK's
// batch processor starts the next export as one fails, then forgets that it did: each failure adds
// an export under way, so while the collector times out they pile up (7 batches at once after 30 s
// of 10,000 spans a second), towards every span of the last timeout. Past `maxSendingSpans` being
// sent, a batch is dropped at once.
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { withDeadline } from "../../core/lib/deadline.ts";
import { errorMessage, type Logger } from "../../core/log.ts";
import type { OtlpProtocol, TraceSettings } from "../../core/telemetry/settings.ts";

/** How long one export may take before its batch is dropped. */
export const EXPORT_TIMEOUT_MS = 5_000;

/** Each protocol's serializer and the content type OTLP/HTTP names for it. */
const ENCODINGS: Record<OtlpProtocol, { serializer: typeof JsonTraceSerializer; contentType: string }> = {
  "http/protobuf": { serializer: ProtobufTraceSerializer, contentType: "application/x-protobuf" },
  "http/json": { serializer: JsonTraceSerializer, contentType: "application/json" },
};

export interface OtlpExporterOptions {
  settings: Pick<TraceSettings, "url" | "headers" | "protocol">;
  logger: Logger;
  /** Spans being sent at once at most, in every export under way; a batch past it is dropped. */
  maxSendingSpans: number;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export class OtlpFetchExporter implements SpanExporter {
  /** Spans dropped since the start, the warning's running count. */
  dropped = 0;
  /** Spans in the exports under way. */
  private sending = 0;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly options: OtlpExporterOptions) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const { maxSendingSpans } = this.options;
    if (this.sending + spans.length > maxSendingSpans) {
      this.drop(spans, new Error(`${this.sending} spans are being sent already, at most ${maxSendingSpans}`), done);
      return;
    }
    this.sending += spans.length;
    const sent = this.send(spans)
      // Before `done`: the processor may start its next export from it.
      .finally(() => {
        this.sending -= spans.length;
      })
      .then(
        () => done({ code: ExportResultCode.SUCCESS }),
        (error: unknown) => this.drop(spans, error, done),
      );
    this.pending.add(sent);
    void sent.finally(() => this.pending.delete(sent));
  }

  private drop(spans: ReadableSpan[], error: unknown, done: (result: ExportResult) => void): void {
    this.dropped += spans.length;
    this.options.logger.log("warn", "traces_dropped", {
      spans: spans.length,
      droppedSoFar: this.dropped,
      error: errorMessage(error),
    });
    done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
  }

  private async send(spans: ReadableSpan[]): Promise<void> {
    const { settings, fetch: send = fetch, timeoutMs = EXPORT_TIMEOUT_MS } = this.options;
    const { serializer, contentType } = ENCODINGS[settings.protocol];
    const body = serializer.serializeRequest(spans) as Uint8Array<ArrayBuffer> | undefined;
    if (!body) throw new Error("the spans could not be serialized");
    await withDeadline(async (signal) => {
      const response = await send(settings.url, {
        method: "POST",
        headers: { ...settings.headers, "content-type": contentType },
        body,
        signal,
      });
      // Read to the end, so the connection can be reused; the body says nothing we act on.
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) throw new Error(`the collector answered ${response.status}`);
    }, timeoutMs);
  }

  async forceFlush(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
  }
}
