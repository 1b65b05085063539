// Where a service installs its packages (Node, Deno), the OpenTelemetry SDK is a package of its own
// (edge/telemetry/package.json) that the production install leaves out: it is loaded only when
// OTEL_EXPORTER_OTLP_ENDPOINT asks for traces, so a service without them neither installs nor
// starts it. Bundles (Workers, Compute) import createTelemetry directly.
import { SettingsError } from "../../core/settings/error.ts";
import type { Settings } from "../../core/settings/settings.ts";
import type { createTelemetry } from "./telemetry.ts";

/** Builds a runtime's tracing over the SDK (edge/telemetry/telemetry.ts). */
export type TelemetryFactory = typeof createTelemetry;

/** What installs the SDK beside the production install, exactly as the lock file pins it. */
export const TRACING_INSTALL_COMMAND =
  "npm ci --omit=dev --omit=optional --workspace=edge/telemetry --include-workspace-root";

/** The setting that asks for traces; without the SDK installed, the one a refusal names. */
const ENDPOINT_SETTING = "OTEL_EXPORTER_OTLP_ENDPOINT";

/** The refusal when traces are asked for without the SDK: one line naming the endpoint and the install. */
export const sdkMissing = () =>
  new SettingsError(
    ENDPOINT_SETTING,
    `is set, but this install has no OpenTelemetry SDK: install it with \`${TRACING_INSTALL_COMMAND}\` (docs/observability.md)`,
  );

/**
 * The SDK's factory when the settings ask for traces, none when they do not; a SettingsError
 * naming the endpoint when they do and the SDK is not installed.
 */
export async function loadTelemetryFactory(
  settings: Settings,
  load: () => Promise<{ createTelemetry: TelemetryFactory }> = () => import("./telemetry.ts"),
): Promise<TelemetryFactory | undefined> {
  if (!settings.traces) return undefined;
  try {
    return (await load()).createTelemetry;
  } catch (error) {
    if (isModuleMissing(error)) throw sdkMissing();
    throw error;
  }
}

/** Node and Deno both say ERR_MODULE_NOT_FOUND when a package an import names is not installed. */
const isModuleMissing = (error: unknown) => (error as { code?: unknown } | null)?.code === "ERR_MODULE_NOT_FOUND";
