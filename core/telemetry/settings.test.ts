// service.name as OpenTelemetry's SDKs take it: OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES'
// own service.name, else the project's name; and where traces go, from OTEL_EXPORTER_OTLP_ENDPOINT.
import { describe, expect, it } from "vitest";
import { parseSettings } from "../settings/settings.ts";
import { DEFAULT_SERVICE_NAME } from "./settings.ts";

const traces = (raw: Record<string, string>) =>
  parseSettings({
    AUTH_SECRET: "a-development-secret-of-32-bytes-or-more",
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
    ...raw,
  }).traces!;

describe("service.name", () => {
  it.each([
    ["neither is set", {}, DEFAULT_SERVICE_NAME],
    [
      "only OTEL_RESOURCE_ATTRIBUTES names it",
      { OTEL_RESOURCE_ATTRIBUTES: "service.name=billing,team=core" },
      "billing",
    ],
    ["OTEL_RESOURCE_ATTRIBUTES names it empty", { OTEL_RESOURCE_ATTRIBUTES: "service.name=" }, DEFAULT_SERVICE_NAME],
    ["only OTEL_SERVICE_NAME is set", { OTEL_SERVICE_NAME: "links" }, "links"],
    // A line break a store kept after the value would be part of every trace's service.name.
    ["OTEL_SERVICE_NAME has spaces around it", { OTEL_SERVICE_NAME: " links\n" }, "links"],
    [
      "both name it: OTEL_SERVICE_NAME wins",
      { OTEL_SERVICE_NAME: "links", OTEL_RESOURCE_ATTRIBUTES: "service.name=billing" },
      "links",
    ],
  ])("is the right one when %s", (_label, raw, name) => {
    expect(traces(raw).serviceName).toBe(name);
  });
});

describe("OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it.each(["http://127.0.0.1:4318 ", " http://127.0.0.1:4318/\n", "http://127.0.0.1:4318/ "])(
    "%j sends traces to <it>/v1/traces, without the spaces around it",
    (endpoint) => {
      expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).url).toBe("http://127.0.0.1:4318/v1/traces");
    },
  );

  // Appended after a query or a fragment, /v1/traces would be part of it: every export would miss the collector.
  it.each(["http://127.0.0.1:4318/?tenant=a", "http://127.0.0.1:4318/#traces"])(
    "%j is refused, naming it",
    (endpoint) => {
      expect(() => traces({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toThrow(
        /^OTEL_EXPORTER_OTLP_ENDPOINT must be a URL without query or fragment/,
      );
    },
  );
});
