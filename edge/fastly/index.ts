// The Fastly Compute service, built into bin/main.wasm by `npm run build:fastly`. Compute only
// dispatches to `fetch` event listeners. Settings come from a Config Store and a Secret Store, the
// KV cache is a Fastly KV Store, and every Neon request goes to the named `neon` backend.
// Compute has no scheduler: after a response, a request runs the background jobs (the link sync
// into the KV Store among them) when this deployment's lease (held in that store) has run out, at
// most once per interval.
import { enforceExplicitBackends } from "fastly:backend";
import { ConfigStore } from "fastly:config-store";
import { PenaltyBox, RateCounter } from "fastly:edge-rate-limiter";
import { env } from "fastly:env";
import { setReusableSandboxOptions } from "fastly:experimental";
import { KVStore } from "fastly:kv-store";
import { SecretStore } from "fastly:secret-store";
import { ProblemError, problemResponse } from "../../core/http/problem.ts";
import { consoleLogger, errorMessage } from "../../core/log.ts";
import { misconfiguredResponse } from "../../core/settings/misconfigured.ts";
import { parseSettings, SettingsError } from "../../core/settings/settings.ts";
import { checkTokenKeys } from "../../core/tokens/verifier.ts";
import { createInstance, type Instance, type RuntimeStores } from "../instance.ts";
import { createFastlyKv } from "../kv/fastly-kv.ts";
import { createFastlyRateLimiter } from "../rate-limit/fastly-erl.ts";
import { createTelemetry } from "../telemetry/telemetry.ts";
import { installAbortSignal } from "./abort-signal.ts";
import { CONFIG_STORE, JWKS_BACKEND, KV_STORE, NEON_BACKEND, OTEL_BACKEND, SECRET_STORE } from "./bindings.ts";
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

// Stores can only be opened while a request runs (the build snapshots the top level before any
// exists), so the app is built on an instance's first request, from the stores read then, and
// kept for the requests the instance serves, as Workers build one per `env`. Paid once per
// instance, which serves request after request (reuse.ts), it buys an app built from its
// settings like on every other runtime, with no stand-in to keep in step with the ports.
// Its counters are opened on first use, so it is made once, at the top level, for every deployment.
const rateLimiter = createFastlyRateLimiter({ RateCounter, PenaltyBox });
let instance: Promise<Instance> | undefined;

/** This instance's app and jobs, built on its first request; a failed read is tried again on the next. */
function thisInstance(): Promise<Instance> {
  instance ??= readStores()
    .then((stores) =>
      createInstance({
        runtime: "fastly",
        stores,
        sql: { fetchFunction: fetchThroughBackend(NEON_BACKEND) },
        jwksFetch: fetchThroughBackend(JWKS_BACKEND),
        limits: COMPUTE_LIMITS,
        rateLimiter,
        // The fetch event's client, handed in as the app's env: read only when a token is refused.
        clientAddress: (c) => (c.env as FastlyEnv | undefined)?.client.address,
        // Spans leave through the `otel` backend, each response's within its waitUntil.
        telemetry: {
          fetch: fetchThroughBackend(OTEL_BACKEND),
          afterResponse: "own-spans",
          deployment: fastlyDeployment(),
        },
        createTelemetry,
      }),
    )
    .catch((error: unknown) => {
      instance = undefined;
      throw error;
    });
  return instance;
}

// OpenSSL's first-use setup behind crypto.subtle, done at the top level so that the snapshot
// holds it. Only speed depends on it: a failure here leaves that work to each instance.
warmWebCrypto().catch(() => {});

/** The service and its version, as Compute names them, in every trace's resource. */
const fastlyDeployment = () => ({
  "faas.name": env("FASTLY_SERVICE_ID"),
  "service.version": env("FASTLY_SERVICE_VERSION"),
  "cloud.region": env("FASTLY_POP"),
});

async function readStores(): Promise<RuntimeStores> {
  const raw = await readFastlySettings(new ConfigStore(CONFIG_STORE), new SecretStore(SECRET_STORE));
  const settings = requireNeonEndpoint(parseSettings(raw));
  await checkTokenKeys(settings.auth);
  return { settings, kv: createFastlyKv(new KVStore(KV_STORE)) };
}

/** What the app is handed as its env: the client Compute took the request from. */
interface FastlyEnv {
  client: { readonly address: string };
}

/** The part of the fetch event used here. */
interface FetchEvent extends FastlyEnv {
  request: Request;
  respondWith(response: Promise<Response>): void;
  waitUntil(promise: Promise<unknown>): void;
}

async function handle(event: FetchEvent): Promise<Response> {
  let app: Instance["app"];
  let background: Instance["background"];
  let flushTraces: Instance["flushTraces"];
  try {
    ({ app, background, flushTraces } = await thisInstance());
  } catch (error) {
    if (error instanceof SettingsError) return misconfiguredResponse(error, consoleLogger);
    consoleLogger.log("error", "startup_failed", { error: errorMessage(error) });
    return problemResponse(new ProblemError(500, "internal_error", "The service is misconfigured."));
  }
  // The event's waitUntil keeps a key set refresh the app starts alive past the answer.
  const response = await app.fetch(event.request, { client: event.client } satisfies FastlyEnv, {
    waitUntil: (work) => event.waitUntil(work),
    passThroughOnException: () => {},
    props: {},
  });
  // Registered before the response is handed over, run after it: never on the request's path.
  event.waitUntil(
    Promise.resolve()
      .then(() => background.runIfDue())
      .finally(flushTraces),
  );
  return response;
}

addEventListener("fetch", (event) => event.respondWith(handle(event as unknown as FetchEvent)));
