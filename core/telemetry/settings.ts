// Where traces go: the standard OTLP exporter variables, read like every other setting. Without
// OTEL_EXPORTER_OTLP_ENDPOINT nothing is traced and nothing is sent.
import * as v from "valibot";
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

// Not URL.canParse: Fastly's runtime lacks it.
function isHttpUrl(value: string): boolean {
  try {
    return /^https?:\/\//.test(value) && new URL(value).hostname !== "";
  } catch {
    return false;
  }
}

export const DEFAULT_SERVICE_NAME = "edge-race-free";

export const TELEMETRY_SETTINGS = settingsGroup(
  {
    OTEL_EXPORTER_OTLP_ENDPOINT: optional(
      v.pipe(text, v.check(isHttpUrl, "must be an http:// or https:// URL (the collector's OTLP/HTTP base)")),
    ),
    OTEL_EXPORTER_OTLP_HEADERS: optional(keyValueList("headers")),
    OTEL_SERVICE_NAME: withDefault(v.pipe(text, v.minLength(1, "must not be empty")), DEFAULT_SERVICE_NAME),
    OTEL_RESOURCE_ATTRIBUTES: optional(keyValueList("attributes")),
  },
  (values) => ({
    /** Traces over OTLP/HTTP, when OTEL_EXPORTER_OTLP_ENDPOINT is set; none otherwise. */
    traces: values.OTEL_EXPORTER_OTLP_ENDPOINT
      ? {
          /** `<endpoint>/v1/traces`, as the OTLP exporter specification derives it. */
          url: `${values.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`,
          headers: (values.OTEL_EXPORTER_OTLP_HEADERS ?? {}) as Readonly<Record<string, string>>,
          serviceName: values.OTEL_SERVICE_NAME,
          resourceAttributes: (values.OTEL_RESOURCE_ATTRIBUTES ?? {}) as Readonly<Record<string, string>>,
        }
      : undefined,
  }),
);

export type TraceSettings = NonNullable<v.InferOutput<typeof TELEMETRY_SETTINGS>["traces"]>;
