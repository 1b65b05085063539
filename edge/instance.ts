// One wiring for every runtime: from what a runtime provides (its name, its settings and KV
// store, how its SQL requests and key-set fetches leave, its per-invocation limits) to the app it
// serves and the background jobs its scheduler triggers. An entry keeps only what differs: how it serves,
// when it runs the jobs, how an unusable setting is reported.
import { type App, type AppDeps, createApp } from "../core/app.ts";
import type { InvocationLimits } from "../core/background/invocation-budget.ts";
import type { Background } from "../core/background/job.ts";
import { createBackground } from "../core/background/runner.ts";
import { CAPABILITY_JOBS } from "../core/capabilities.ts";
import { consoleLogger, type Logger } from "../core/log.ts";
import type { KvCache } from "../core/ports/kv.ts";
import type { RateLimiter } from "../core/ports/rate-limit.ts";
import { type Settings, SettingsError } from "../core/settings/settings.ts";
import { neonSqlFromSettings } from "./neon/neon-sql.ts";
import type { RuntimeName } from "./runtimes.ts";
import { sdkMissing, type TelemetryFactory } from "./telemetry/load.ts";
import type { TelemetryParts } from "./telemetry/telemetry.ts";

/** What a runtime reads before anything is served: its settings and its KV store. */
export interface RuntimeStores {
  settings: Settings;
  kv: KvCache;
}

export interface RuntimeParts {
  /** Its name in edge/runtimes.ts, which `/healthz` reports. */
  runtime: RuntimeName;
  stores: RuntimeStores;
  /** How the Neon driver's requests leave (Fastly: through the `neon` backend). */
  sql?: Parameters<typeof neonSqlFromSettings>[1];
  /** How AUTH_JWKS_URL is fetched, when not with the global `fetch`. */
  jwksFetch?: typeof fetch;
  /** What one invocation may spend (Workers: KV operations; Fastly: backend requests). */
  limits?: InvocationLimits;
  /** Counts requests per caller and per tenant with what the platform offers (edge/rate-limit/). */
  rateLimiter?: RateLimiter;
  /** The client's address as the platform vouches for it (the socket, a header its edge sets). */
  clientAddress?: AppDeps["clientAddress"];
  /** Where the start-up warning goes (default: the console's structured lines). */
  logger?: Logger;
  /** How traces leave and when, where OTEL_EXPORTER_OTLP_ENDPOINT asks for them (edge/telemetry/). */
  telemetry?: Omit<TelemetryParts, "runtime" | "logger">;
  /** The OpenTelemetry SDK's factory, where the runtime has it (edge/telemetry/load.ts). */
  createTelemetry?: TelemetryFactory;
}

/** What one instance of a runtime (a process, an isolate, a Compute instance) serves and runs. */
export interface Instance {
  app: App;
  /** The capabilities' background jobs, as the runtime's scheduler triggers them. */
  background: Pick<Background, "run" | "runFor" | "runIfDue" | "intervalMs">;
  /** Sends the spans recorded so far (a scheduled run's, before its invocation ends); never rejects. */
  flushTraces(): Promise<void>;
}

/** One instance's app and background jobs over its runtime's stores; an unusable setting throws a SettingsError. */
export function createInstance(parts: RuntimeParts): Instance {
  const { settings, kv } = parts.stores;
  checkSecretScope(settings, parts.logger ?? consoleLogger);
  const sql = neonSqlFromSettings(settings, parts.sql);
  if (settings.traces && !parts.createTelemetry) throw sdkMissing();
  const telemetry = parts.createTelemetry?.(settings, {
    ...parts.telemetry,
    runtime: parts.runtime,
    logger: parts.logger ?? consoleLogger,
  });
  const background = createBackground(
    { sql, kv, settings, telemetry },
    { jobs: CAPABILITY_JOBS, limits: parts.limits },
  );
  const app = createApp({
    sql,
    kv,
    settings,
    background,
    runtime: parts.runtime,
    jwksFetch: parts.jwksFetch,
    rateLimiter: parts.rateLimiter,
    clientAddress: parts.clientAddress,
    telemetry,
  });
  return { app, background, flushTraces: () => telemetry?.flush() ?? Promise.resolve() };
}

/**
 * AUTH_SECRET signs for any tenant and role, for whoever holds it: a deployment takes it only when
 * AUTH_SECRET_SCOPE says so (core then requires an issuer, an audience and a secret of its own),
 * and says so in its log at start. The local stack's launchers set `local`.
 */
function checkSecretScope({ auth }: Settings, logger: Logger): void {
  if (auth.secret === undefined) return;
  if (auth.secretScope === undefined) {
    throw new SettingsError(
      "AUTH_SECRET_SCOPE",
      "is not set: AUTH_SECRET is the development key; sign in with AUTH_JWKS_URL, or set AUTH_SECRET_SCOPE=deployment (docs/deploy.md)",
    );
  }
  if (auth.secretScope === "deployment") {
    logger.log("warn", "shared_secret_signs", {
      setting: "AUTH_SECRET_SCOPE",
      detail: "AUTH_SECRET signs tokens for any tenant and role: whoever holds it is an admin",
    });
  }
}
