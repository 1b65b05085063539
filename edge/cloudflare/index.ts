// The Cloudflare Workers entry: a module worker. Bindings → settings → ports → the core app.
// A Cron Trigger (wrangler.toml) runs `scheduled`, which runs the background jobs (the link sync into LINKS among them).
import type { ExecutionContext } from "hono";
import { consoleLogger } from "../../core/log.ts";
import type { SettingsError } from "../../core/settings/error.ts";
import { misconfiguredResponse } from "../../core/settings/misconfigured.ts";
import { checkTokenKeys } from "../../core/tokens/verifier.ts";
import { createInstance, type Instance } from "../instance.ts";
import { createWorkersKv } from "../kv/workers-kv.ts";
import { createWorkersRateLimiter, type WorkersRateLimitBindings } from "../rate-limit/workers.ts";
import { createTelemetry } from "../telemetry/telemetry.ts";
import { type Bindings, invocationLimits, linksNamespace, settingsFromBindings } from "./settings.ts";

/** Cron Triggers fire at most once a minute; each run runs the jobs every interval until the next. */
const CRON_PERIOD_MS = 60_000;

// One app per isolate and bindings object: building it (settings, key import, SQL port) is not
// per-request work. Workers hand the same `env` to every request of an isolate.
const instances = new WeakMap<Bindings, Instance>();

// CF_VERSION_METADATA is the version metadata binding wrangler.toml declares: this deployment's
// version, as Cloudflare made it.
type Env = Bindings & WorkersRateLimitBindings & { CF_VERSION_METADATA?: { id: string } };

// AUTH_JWKS's keys, imported once per bindings object (Workers have no start-up step to wait in):
// the setting's error, or none. Held as a value, so a scheduled run that never reads it rejects nothing.
const keyChecks = new WeakMap<Bindings, Promise<SettingsError | undefined>>();

function instanceFor(env: Env): Instance {
  let instance = instances.get(env);
  if (!instance) {
    const settings = settingsFromBindings(env);
    keyChecks.set(
      env,
      checkTokenKeys(settings.auth).then(
        () => undefined,
        (error: SettingsError) => error,
      ),
    );
    instance = createInstance({
      runtime: "cloudflare",
      stores: { settings, kv: createWorkersKv(linksNamespace(env)) },
      limits: invocationLimits(env),
      rateLimiter: createWorkersRateLimiter(env),
      // Set by Cloudflare's edge to the address it took the request from, whatever the client sent.
      clientAddress: (c) => c.req.header("cf-connecting-ip"),
      // A timer may not outlive an invocation: the response that opens a batch keeps it alive.
      telemetry: {
        afterResponse: "shared-batch",
        // Every trace's resource names the deployment's version, where wrangler.toml binds it.
        deployment: { "service.version": env.CF_VERSION_METADATA?.id },
      },
      createTelemetry,
    });
    instances.set(env, instance);
  }
  return instance;
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
    let instance: Instance;
    try {
      instance = instanceFor(env);
    } catch (error) {
      // Workers have no start-up step to fail: an unusable setting is answered on every request.
      return misconfiguredResponse(error, consoleLogger);
    }
    return keyChecks
      .get(env)!
      .then((unusable) =>
        unusable ? misconfiguredResponse(unusable, consoleLogger) : instance.app.fetch(request, env, ctx),
      );
  },
  // An unusable setting throws here too: Workers record a failed scheduled run with its error.
  scheduled(_controller: unknown, env: Env, ctx: ExecutionContext): void {
    const instance = instanceFor(env);
    ctx.waitUntil(instance.background.runFor(CRON_PERIOD_MS).finally(instance.flushTraces));
  },
};
