// The Fastly Compute service, built into bin/main.wasm by `npm run build:fastly`. Compute only
// dispatches to `fetch` event listeners. Settings come from a Config Store and a Secret Store, the
// KV cache is a Fastly KV Store, and every Neon request goes to the named `neon` backend.
// Compute has no scheduler: after a response, a request drains the link change feed into the KV
// Store when this deployment's lease (held in that store) has run out, at most once per interval.
import { enforceExplicitBackends } from "fastly:backend";
import { ConfigStore } from "fastly:config-store";
import { KVStore } from "fastly:kv-store";
import { SecretStore } from "fastly:secret-store";
import { createApp, type App } from "../../core/app.ts";
import { createLinkSync, type LinkSync } from "../../core/links/sync.ts";
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
let app: Promise<FastlyService> | undefined;

interface FastlyService {
  app: App;
  linkSync: LinkSync;
}

/** The part of the fetch event used here. */
interface FetchEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
  waitUntil(promise: Promise<unknown>): void;
}

function fastlyApp(): Promise<FastlyService> {
  app ??= createFastlyApp().catch((error: unknown) => {
    app = undefined;
    throw error;
  });
  return app;
}

async function createFastlyApp(): Promise<FastlyService> {
  const raw = await readFastlySettings(new ConfigStore(CONFIG_STORE), new SecretStore(SECRET_STORE));
  const settings = requireNeonEndpoint(parseSettings(raw));
  const sql = neonSqlFromSettings(settings, { fetchFunction: fetchThroughBackend(NEON_BACKEND) });
  const deps = { sql, kv: createFastlyKv(new KVStore(KV_STORE)), settings };
  const linkSync = createLinkSync(deps);
  const app = createApp({ ...deps, runtime: "fastly", linkSync, jwksFetch: fetchThroughBackend(JWKS_BACKEND) });
  return { app, linkSync };
}

async function handle(event: FetchEvent): Promise<Response> {
  let service: FastlyService;
  try {
    service = await fastlyApp();
  } catch (error) {
    if (error instanceof SettingsError) return misconfiguredResponse(error, consoleLogger);
    consoleLogger.log("error", "startup_failed", { error: errorMessage(error) });
    return problemResponse(new ProblemError(500, "internal_error", "The service is misconfigured."));
  }
  const response = await service.app.fetch(event.request);
  // Registered before the response is handed over, run after it: never on the request's path.
  event.waitUntil(Promise.resolve().then(() => service.linkSync.drainIfDue()));
  return response;
}

addEventListener("fetch", (event) => event.respondWith(handle(event as unknown as FetchEvent)));
