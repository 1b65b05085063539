// service.name as OpenTelemetry's SDKs take it: OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES'
// own service.name, else the project's name.
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
    [
      "both name it: OTEL_SERVICE_NAME wins",
      { OTEL_SERVICE_NAME: "links", OTEL_RESOURCE_ATTRIBUTES: "service.name=billing" },
      "links",
    ],
  ])("is the right one when %s", (_label, raw, name) => {
    expect(traces(raw).serviceName).toBe(name);
  });
});
