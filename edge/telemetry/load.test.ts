import { describe, expect, it } from "vitest";
import { parseSettings, SettingsError } from "../../core/settings/settings.ts";
import { createInstance } from "../instance.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { loadTelemetryFactory, TRACING_INSTALL_COMMAND } from "./load.ts";
import { createTelemetry } from "./telemetry.ts";

const raw = {
  AUTH_SECRET: "a".repeat(32),
  AUTH_SECRET_SCOPE: "local",
  DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
  NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
};
const untraced = parseSettings(raw);
const traced = parseSettings({ ...raw, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" });
const missing = () => Promise.reject(Object.assign(new Error("Cannot find package"), { code: "ERR_MODULE_NOT_FOUND" }));

describe("loadTelemetryFactory", () => {
  it("loads nothing when no endpoint asks for traces", async () => {
    let loads = 0;
    const load = async () => (loads++, { createTelemetry });
    expect(await loadTelemetryFactory(untraced, load)).toBeUndefined();
    expect(loads).toBe(0);
  });

  it("loads the SDK's factory when one does", async () => {
    expect(await loadTelemetryFactory(traced)).toBe(createTelemetry);
  });

  it("refuses the endpoint, naming the tracing install, when the SDK is not installed", async () => {
    const refusal = loadTelemetryFactory(traced, missing);
    await expect(refusal).rejects.toThrow(SettingsError);
    await expect(refusal).rejects.toThrow(/^OTEL_EXPORTER_OTLP_ENDPOINT is set, but this install has no/);
    await expect(refusal).rejects.toThrow(TRACING_INSTALL_COMMAND);
  });

  it("passes on any other failure to load it", async () => {
    const broken = () => Promise.reject(new SyntaxError("Unexpected token"));
    await expect(loadTelemetryFactory(traced, broken)).rejects.toThrow(SyntaxError);
  });

  it("is what createInstance requires when traces are asked for", () => {
    const stores = { settings: traced, kv: createMemoryKv() };
    expect(() => createInstance({ runtime: "node", stores })).toThrow(/^OTEL_EXPORTER_OTLP_ENDPOINT is set/);
    expect(createInstance({ runtime: "node", stores, createTelemetry }).flushTraces).toBeTypeOf("function");
  });
});
