// The OpenTelemetry SDK behind core's tracing: a tracer provider whose spans are batched in a
// bounded queue and exported over OTLP/HTTP (otlp-exporter.ts). Made only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing here is registered globally.
import { type Attributes, type DiagLogger, DiagLogLevel, diag } from "@opentelemetry/api";
import { SDK_INFO, setGlobalErrorHandler, W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { Logger } from "../../core/log.ts";
import type { Settings } from "../../core/settings/settings.ts";
import type { TraceSampler, TraceSettings } from "../../core/telemetry/settings.ts";
import type { Telemetry } from "../../core/telemetry/tracing.ts";
import type { RuntimeName } from "../runtimes.ts";
import { EXPORT_TIMEOUT_MS, OtlpFetchExporter } from "./otlp-exporter.ts";

/** Spans held for export at most; beyond, new ones are dropped and counted. */
export const MAX_QUEUED_SPANS = 2_048;
/** Spans in one export at most. */
const MAX_BATCH_SPANS = 512;
/** How long a span waits at most before its batch is sent. */
export const BATCH_DELAY_MS = 1_000;
/**
 * Characters a span's attribute value keeps at most; the SDK cuts a longer one. Some come from
 * what any client sends (`server.address` from Host, `http.request.method_original` from the
 * request line), which Deno takes up to tens of KB each: uncut, every queued span could hold that.
 * A host name is at most 253 characters.
 */
const MAX_ATTRIBUTE_CHARS = 256;

/**
 * The SDK, as the resource conventions require of every SDK's resource: its name, its language
 * (`nodejs` where Node's build of it runs, Node and Deno; `webjs` in the Workers and Compute
 * bundles, which take its Web build) and its version. Not SDK_INFO's `process.runtime.name`:
 * each runtime names itself below.
 */
const SDK_RESOURCE: Attributes = {
  "telemetry.sdk.name": SDK_INFO["telemetry.sdk.name"],
  "telemetry.sdk.language": SDK_INFO["telemetry.sdk.language"],
  "telemetry.sdk.version": SDK_INFO["telemetry.sdk.version"],
};

/** What each runtime says of itself in every trace, beside the service's settings. */
const RUNTIME_RESOURCE: Record<RuntimeName, Attributes> = {
  node: { "process.runtime.name": "nodejs" },
  cloudflare: {
    "process.runtime.name": "workerd",
    "cloud.provider": "cloudflare",
    "cloud.platform": "cloudflare_workers",
  },
  deno: { "process.runtime.name": "deno" },
  fastly: { "process.runtime.name": "js-compute", "cloud.provider": "fastly", "cloud.platform": "fastly_compute" },
};

export interface TelemetryParts {
  runtime: RuntimeName;
  logger: Logger;
  /** How exports leave (Fastly: through the `otel` backend). */
  fetch?: typeof fetch;
  /**
   * Where no timer may outlive an invocation, how a response's spans are kept alive past its
   * answer: `own-spans`, each response keeps an export of the spans recorded so far (Compute,
   * whose reused instance a pending timer would end); `shared-batch`, the response that opens a
   * batch keeps it, sent once for every response in it BATCH_DELAY_MS after it opened (Workers,
   * whose isolate serves request after request).
   * Unset: the SDK's own timer sends batches (Node, Deno).
   */
  afterResponse?: "own-spans" | "shared-batch";
  /** What the platform says of this deployment (its version, its id), where it says it. */
  deployment?: Attributes;
}

/**
 * Where responses send the spans (Workers, Compute), nothing else does until the invocation ends
 * (the background run's flush): each export is a subrequest or backend request of the invocation
 * it leaves in, and a cron run's budget (WORKERS_SUBREQUESTS less 2) leaves room for its final
 * export only. The SDK's timer would send a long run's spans every interval, a batch of 512 at
 * once: more fetches than that room, which then failed the run's last statements. So a flush is
 * one export, the timer never fires within an invocation (setTimeout's longest delay, 24.8
 * days), and the processor sends on its own only a full queue.
 */
const SENT_WHEN_ASKED = { maxExportBatchSize: MAX_QUEUED_SPANS, scheduledDelayMillis: 2 ** 31 - 1 };
/** Elsewhere (Node, Deno) the SDK's timer sends the spans, in batches, at most a second after they end. */
const SENT_ON_A_TIMER = { maxExportBatchSize: MAX_BATCH_SPANS, scheduledDelayMillis: BATCH_DELAY_MS };

/** Core's Telemetry over the SDK, or none when no endpoint is set. */
export function createTelemetry(settings: Settings, parts: TelemetryParts): Telemetry | undefined {
  const traces = settings.traces;
  if (!traces) return undefined;
  reportSdkWarnings(parts.logger);
  // As many being sent as waiting: what one instance holds of its spans is at most twice the queue.
  const exporter = new OtlpFetchExporter({
    settings: traces,
    logger: parts.logger,
    fetch: parts.fetch,
    maxSendingSpans: MAX_QUEUED_SPANS,
  });
  const processor = new BatchSpanProcessor({
    exporter,
    maxQueueSize: MAX_QUEUED_SPANS,
    ...(parts.afterResponse ? SENT_WHEN_ASKED : SENT_ON_A_TIMER),
    // The exporter bounds its own time (otlp-exporter.ts); this is the SDK's backstop.
    exportTimeoutMillis: 2 * EXPORT_TIMEOUT_MS,
  });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      ...traces.resourceAttributes,
      ...SDK_RESOURCE,
      ...parts.deployment,
      ...RUNTIME_RESOURCE[parts.runtime],
      "edge.runtime": parts.runtime,
      "service.name": traces.serviceName,
      "service.instance.id": crypto.randomUUID(),
    }),
    spanProcessors: [processor],
    spanLimits: { attributeValueLengthLimit: MAX_ATTRIBUTE_CHARS },
    sampler: samplerOf(traces),
  });
  // The processor's flush does not wait for an export its full queue began: the exporter's does.
  const flush = () =>
    processor
      .forceFlush()
      .then(() => exporter.forceFlush())
      .catch(() => undefined);
  const afterResponse = { "own-spans": flush, "shared-batch": sharedBatch(flush, BATCH_DELAY_MS) };
  return {
    tracer: provider.getTracer("edge-race-free"),
    propagator: new W3CTraceContextPropagator(),
    flush,
    ...(parts.afterResponse ? { afterResponse: afterResponse[parts.afterResponse] } : {}),
  };
}

/**
 * One export for every response that ends while a batch is open: the first opens it and keeps it
 * alive within its `waitUntil`; its timer sends the spans of every response that ended meanwhile
 * (each ended before its response did). The others hand the platform nothing to wait for: a
 * `waitUntil` of the same promise would keep nothing longer alive, and costs workerd some 25 µs a
 * call (docs/observability.md). A response that ends once the batch is being sent opens the
 * next. One collector request a second per isolate instead of one per response.
 */
function sharedBatch(flush: () => Promise<void>, delayMs: number): () => Promise<void> | undefined {
  let open: Promise<void> | undefined;
  return () => {
    if (open) return undefined;
    open = new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(() => {
      open = undefined;
      return flush();
    });
    return open;
  };
}

/** OTEL_TRACES_SAMPLER's sampler, as the SDK implements each (OTEL_TRACES_SAMPLER_ARG its ratio). */
export function samplerOf({ sampler, samplerRatio }: Pick<TraceSettings, "sampler" | "samplerRatio">): Sampler {
  const samplers: Record<TraceSampler, () => Sampler> = {
    always_on: () => new AlwaysOnSampler(),
    always_off: () => new AlwaysOffSampler(),
    traceidratio: () => new TraceIdRatioBasedSampler(samplerRatio),
    parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
    parentbased_traceidratio: () => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(samplerRatio) }),
  };
  return samplers[sampler]();
}

/**
 * The SDK reports a full queue through its diagnostic logger (once per run of drops, with their
 * count); those warnings go to the service's log. Export failures are the exporter's to report.
 */
function reportSdkWarnings(logger: Logger): void {
  const warn = (message: string) => logger.log("warn", "traces_dropped", { reason: message });
  const quiet = () => {};
  const diagLogger: DiagLogger = { error: quiet, warn, info: quiet, debug: quiet, verbose: quiet };
  diag.setLogger(diagLogger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  setGlobalErrorHandler(quiet);
}
