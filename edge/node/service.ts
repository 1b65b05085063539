// The Node service, as the production entry and `npm start` run it: settings → ports → the core
// app on Node's HTTP server, an in-process memory cache kept in step with the link change feed by
// a timer running the background jobs, and /docs when API_DOCS=on.
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import type { KvCache } from "../../core/ports/kv.ts";
import { parseSettings, type RawSettings } from "../../core/settings/settings.ts";
import { checkTokenKeys } from "../../core/tokens/verifier.ts";
import { createInstance } from "../instance.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { createMemoryRateLimiter } from "../rate-limit/memory.ts";
import { loadTelemetryFactory } from "../telemetry/load.ts";
import { withApiReference } from "./api-reference.ts";
import { nodeLogger } from "./log.ts";
import { type ListenOptions, listen, type RunningServer } from "./server.ts";
import { readNodeSettings } from "./settings.ts";

/** The peer of the request's socket, which @hono/node-server hands in as `env.incoming`. */
const socketAddress = (c: Context): string | undefined =>
  (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress;

/**
 * Throws a SettingsError naming the first unusable setting before anything listens. `kv`: the
 * process's cache (a test may hand one holding entries already).
 */
export async function startNodeService(
  env: RawSettings,
  listenOptions: ListenOptions,
  kv: KvCache = createMemoryKv(),
): Promise<RunningServer> {
  const stores = { settings: parseSettings(env), kv };
  await checkTokenKeys(stores.settings.auth);
  const { maxConnections, apiDocs } = readNodeSettings(env);
  const { app, background, flushTraces } = createInstance({
    runtime: "node",
    stores,
    rateLimiter: createMemoryRateLimiter(),
    clientAddress: socketAddress,
    logger: nodeLogger,
    createTelemetry: await loadTelemetryFactory(stores.settings),
  });
  const fetch = apiDocs ? withApiReference(app.fetch) : app.fetch;
  const server = await listen(fetch, { maxConnections, ...listenOptions });
  const timer = setInterval(() => void background.run(), background.intervalMs);
  timer.unref();
  return {
    url: server.url,
    async close() {
      clearInterval(timer);
      await server.close();
      // The last requests' spans leave now rather than with a batch the exit would lose.
      await flushTraces();
    },
  };
}
