// The Fastly Compute service, built into bin/main.wasm by `npm run build:fastly`. Compute only
// dispatches to `fetch` event listeners. Settings come from a Config Store and a Secret Store, the
// KV cache is a Fastly KV Store, and every Neon request goes to the named `neon` backend.
// Compute has no scheduler: after a response, a request runs the background jobs (the link drain
// into the KV Store among them) when this deployment's lease (held in that store) has run out, at
// most once per interval.
import { enforceExplicitBackends } from "fastly:backend";
import { ConfigStore } from "fastly:config-store";
import { PenaltyBox, RateCounter } from "fastly:edge-rate-limiter";
import { setReusableSandboxOptions } from "fastly:experimental";
import { KVStore } from "fastly:kv-store";
import { SecretStore } from "fastly:secret-store";
import { ProblemError, problemResponse } from "../../core/http/problem.ts";
import { consoleLogger, errorMessage } from "../../core/log.ts";
import { misconfiguredResponse } from "../../core/settings/misconfigured.ts";
import { parseSettings, SettingsError } from "../../core/settings/settings.ts";
import { createDeployment, type RuntimeStores } from "../deployment.ts";
import { createFastlyKv } from "../kv/fastly-kv.ts";
import { createFastlyRateLimiter } from "../rate-limit/fastly-erl.ts";
import { installAbortSignal } from "./abort-signal.ts";
import { CONFIG_STORE, JWKS_BACKEND, KV_STORE, NEON_BACKEND, SECRET_STORE } from "./bindings.ts";
import { installEd25519 } from "./ed25519.ts";
import { fetchThroughBackend } from "./neon-fetch.ts";
import { SANDBOX_REUSE } from "./reuse.ts";
import { readFastlySettings, requireNeonEndpoint } from "./settings.ts";
import { warmWebCrypto } from "./warm-crypto.ts";

// An instance serves request after request (reuse.ts says why that is safe here).
setReusableSandboxOptions(SANDBOX_REUSE);
// No request may leave for a backend that is not declared on the service.
enforceExplicitBackends();
installAbortSignal();
installEd25519();

// Compute allows 32 backend requests per execution, and each SQL statement is one: a run after
// a response leaves a few to the request it follows.
const COMPUTE_LIMITS = { sqlStatements: 28 };

// Built at the top level, which the build snapshots: every fresh instance starts with the routes,
// the schemas and the router ready. Stores can only be opened while a request runs, so what
// depends on their values (settings, the Neon driver, the KV Store) is bound on the first request
// of each instance, which keeps them for the requests it serves.
const { app, background, ready } = createDeployment({
  runtime: "fastly",
  stores: readStores,
  sql: { fetchFunction: fetchThroughBackend(NEON_BACKEND) },
  jwksFetch: fetchThroughBackend(JWKS_BACKEND),
  limits: COMPUTE_LIMITS,
  rateLimiter: createFastlyRateLimiter({ RateCounter, PenaltyBox }),
});
// The router compiles its matchers on its first match: done here, it is in the snapshot too.
app.router.match("GET", "/healthz");
// Likewise OpenSSL's first-use setup behind crypto.subtle. Only speed depends on it: a failure
// here leaves that work to the first request of each instance.
warmWebCrypto().catch(() => {});

async function readStores(): Promise<RuntimeStores> {
  const raw = await readFastlySettings(new ConfigStore(CONFIG_STORE), new SecretStore(SECRET_STORE));
  return { settings: requireNeonEndpoint(parseSettings(raw)), kv: createFastlyKv(new KVStore(KV_STORE)) };
}

/** The part of the fetch event used here. */
interface FetchEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
  waitUntil(promise: Promise<unknown>): void;
}

async function handle(event: FetchEvent): Promise<Response> {
  try {
    await ready();
  } catch (error) {
    if (error instanceof SettingsError) return misconfiguredResponse(error, consoleLogger);
    consoleLogger.log("error", "startup_failed", { error: errorMessage(error) });
    return problemResponse(new ProblemError(500, "internal_error", "The service is misconfigured."));
  }
  // The event's waitUntil keeps a key set refresh the app starts alive past the answer.
  const response = await app.fetch(event.request, undefined, {
    waitUntil: (work) => event.waitUntil(work),
    passThroughOnException: () => {},
    props: {},
  });
  // Registered before the response is handed over, run after it: never on the request's path.
  event.waitUntil(Promise.resolve().then(() => background.runIfDue()));
  return response;
}

addEventListener("fetch", (event) => event.respondWith(handle(event as unknown as FetchEvent)));
