// The Fastly Compute service, built into bin/main.wasm by `npm run build:fastly`. Compute only
// dispatches to `fetch` event listeners. Settings come from a Config Store and a Secret Store, the
// KV cache is a Fastly KV Store, and every Neon request goes to the named `neon` backend.
import { enforceExplicitBackends } from "fastly:backend";
import { ConfigStore } from "fastly:config-store";
import { KVStore } from "fastly:kv-store";
import { SecretStore } from "fastly:secret-store";
import { createApp, type App } from "../../core/app.ts";
import { consoleLogger, errorMessage } from "../../core/log.ts";
import { misconfiguredResponse } from "../../core/misconfigured.ts";
import { ProblemError, problemResponse } from "../../core/problem.ts";
import { parseSettings, SettingsError } from "../../core/settings.ts";
import { neonSqlFromSettings } from "../neon/neon-sql.ts";
import { installAbortSignal } from "./abort-signal.ts";
import { CONFIG_STORE, JWKS_BACKEND, KV_STORE, NEON_BACKEND, SECRET_STORE } from "./bindings.ts";
import { createFastlyKv } from "../kv/fastly-kv.ts";
import { fetchThroughBackend } from "./neon-fetch.ts";
import { readFastlySettings, requireNeonEndpoint } from "./settings.ts";

// No request may leave for a backend that is not declared on the service.
enforceExplicitBackends();
installAbortSignal();

// Stores can only be opened while a request runs (the build snapshots the top level), so the app
// is made on the first request; an instance that serves several requests reuses it.
let app: Promise<App> | undefined;

function fastlyApp(): Promise<App> {
  app ??= createFastlyApp().catch((error: unknown) => {
    app = undefined;
    throw error;
  });
  return app;
}

async function createFastlyApp(): Promise<App> {
  const raw = await readFastlySettings(new ConfigStore(CONFIG_STORE), new SecretStore(SECRET_STORE));
  const settings = requireNeonEndpoint(parseSettings(raw));
  const sql = neonSqlFromSettings(settings, { fetchFunction: fetchThroughBackend(NEON_BACKEND) });
  const kv = createFastlyKv(new KVStore(KV_STORE));
  return createApp({ sql, kv, settings, runtime: "fastly", jwksFetch: fetchThroughBackend(JWKS_BACKEND) });
}

async function handle(request: Request): Promise<Response> {
  let service: App;
  try {
    service = await fastlyApp();
  } catch (error) {
    if (error instanceof SettingsError) return misconfiguredResponse(error, consoleLogger);
    consoleLogger.log("error", "startup_failed", { error: errorMessage(error) });
    return problemResponse(new ProblemError(500, "internal_error", "The service is misconfigured."));
  }
  return service.fetch(request);
}

addEventListener("fetch", (event) => event.respondWith(handle(event.request)));
