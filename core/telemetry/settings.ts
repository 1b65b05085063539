// Where traces go: the standard OTLP exporter variables, read like every other setting. Without
// OTEL_EXPORTER_OTLP_ENDPOINT nothing is traced and nothing is sent.
import * as v from "valibot";
import { holdsCredentials, parsedUrl } from "../lib/url.ts";
import { optional, settingsGroup, text, withDefault } from "../settings/schema.ts";

/** `key=value` pairs, comma-separated, values percent-encoded (the OTLP exporter's own format). */
function keyValueList(what: string) {
  return v.pipe(
    text,
    v.check((list) => parseKeyValues(list) !== undefined, `must be ${what} as key=value pairs, comma-separated`),
    v.transform((list) => parseKeyValues(list)!),
  );
}

export function parseKeyValues(list: string): Record<string, string> | undefined {
  const pairs: Record<string, string> = {};
  for (const item of list.split(",")) {
    if (item.trim() === "") continue;
    const at = item.indexOf("=");
    if (at <= 0) return undefined;
    const key = item.slice(0, at).trim();
    try {
      pairs[key] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      return undefined;
    }
    if (key === "") return undefined;
  }
  return pairs;
}

// A name that is no field name, or a value holding a line break, would fail every export, each
// with a warning naming no setting: the Fetch standard's own check, made once at start.
function isSendable(headers: Record<string, string>): boolean {
  try {
    new Headers(headers);
    return true;
  } catch {
    return false;
  }
}

function isHttpUrl(value: string): boolean {
  return /^https?:\/\//.test(value) && (parsedUrl(value)?.hostname ?? "") !== "";
}

// `<it>/v1/traces` is appended as text (the OTLP exporter specification's rule): after a query or
// a fragment it would become part of that, and every export would miss the collector.
function isBaseUrl(value: string): boolean {
  const url = parsedUrl(value);
  return !url || (url.search === "" && url.hash === ""); // not a URL: isHttpUrl says so
}

// Credentials in the URL would fail every export (holdsCredentials says why): they go in the headers.
function holdsNoCredentials(value: string): boolean {
  const url = parsedUrl(value);
  return !url || !holdsCredentials(url); // not a URL: isHttpUrl says so
}

export const DEFAULT_SERVICE_NAME = "edge-race-free";

/**
 * The samplers OpenTelemetry's environment specification names for OTEL_TRACES_SAMPLER, bar the
 * vendors' (jaeger_remote, xray): which requests are recorded and sent.
 */
export const TRACE_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

/** OTEL_TRACES_SAMPLER_ARG: the share of traces a ratio sampler keeps, written as a decimal. */
const ratio = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^(0(\.[0-9]+)?|1(\.0+)?|\.[0-9]+)$/, "must be a number from 0 to 1 (0.1 keeps one trace in ten)"),
  v.transform(Number),
);

/**
 * OTEL_EXPORTER_OTLP_PROTOCOL's HTTP encodings: JSON, or protobuf (a third of JSON's bytes, for a
 * backend that takes nothing else). JSON is the default, against the specification's: its
 * encoder is the runtime's own, where protobuf's is JavaScript, which Compute's interpreter runs
 * at about twice JSON's cost per request. gRPC is not offered: no runtime here sends it by `fetch`.
 */
export const OTLP_PROTOCOLS = ["http/protobuf", "http/json"] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

export const TELEMETRY_SETTINGS = settingsGroup(
  {
    OTEL_EXPORTER_OTLP_ENDPOINT: optional(
      v.pipe(
        text,
        // A space a store kept after the value would become part of the path (`<it> /v1/traces`).
        v.trim(),
        v.check(isHttpUrl, "must be an http:// or https:// URL (the collector's OTLP/HTTP base)"),
        v.check(isBaseUrl, "must be a URL without query or fragment: traces go to <it>/v1/traces"),
        v.check(holdsNoCredentials, "must be a URL without user or password (send them in OTEL_EXPORTER_OTLP_HEADERS)"),
      ),
    ),
    OTEL_EXPORTER_OTLP_HEADERS: optional(
      v.pipe(keyValueList("headers"), v.check(isSendable, "must be header names and values a request can carry")),
    ),
    OTEL_EXPORTER_OTLP_PROTOCOL: withDefault(
      v.pipe(v.string(), v.trim(), v.picklist(OTLP_PROTOCOLS, `must be ${OTLP_PROTOCOLS.join(" or ")}`)),
      "http/json",
    ),
    // Without the spaces around it, as OTEL_RESOURCE_ATTRIBUTES' own service.name (a blank one is unset).
    OTEL_SERVICE_NAME: optional(v.pipe(text, v.trim())),
    OTEL_RESOURCE_ATTRIBUTES: optional(keyValueList("attributes")),
    OTEL_TRACES_SAMPLER: withDefault(
      v.pipe(v.string(), v.trim(), v.picklist(TRACE_SAMPLERS, `must be one of ${TRACE_SAMPLERS.join(", ")}`)),
      "parentbased_always_on",
    ),
    OTEL_TRACES_SAMPLER_ARG: withDefault(ratio, "1"),
  },
  (values) => ({
    /** Traces over OTLP/HTTP, when OTEL_EXPORTER_OTLP_ENDPOINT is set; none otherwise. */
    traces: values.OTEL_EXPORTER_OTLP_ENDPOINT
      ? {
          /** `<endpoint>/v1/traces`, as the OTLP exporter specification derives it. */
          url: `${values.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`,
          headers: (values.OTEL_EXPORTER_OTLP_HEADERS ?? {}) as Readonly<Record<string, string>>,
          protocol: values.OTEL_EXPORTER_OTLP_PROTOCOL as OtlpProtocol,
          // As OpenTelemetry's SDKs take it: OTEL_SERVICE_NAME first, then the attributes' own.
          serviceName:
            values.OTEL_SERVICE_NAME ?? (values.OTEL_RESOURCE_ATTRIBUTES?.["service.name"] || DEFAULT_SERVICE_NAME),
          resourceAttributes: (values.OTEL_RESOURCE_ATTRIBUTES ?? {}) as Readonly<Record<string, string>>,
          sampler: values.OTEL_TRACES_SAMPLER as TraceSampler,
          /** The share a ratio sampler keeps (the `*traceidratio` ones only read it). */
          samplerRatio: values.OTEL_TRACES_SAMPLER_ARG,
        }
      : undefined,
  }),
);

export type TraceSettings = NonNullable<v.InferOutput<typeof TELEMETRY_SETTINGS>["traces"]>;
