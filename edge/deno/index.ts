// The Deno entry: `deno task start` (see deno.json), and Deno Deploy's entry point. Deno.env →
// settings → ports → the core app, served by Deno.serve with Deno KV as the link cache. An
// unusable setting (a HOST or PORT it cannot listen on, a DENO_KV_PATH it cannot open included)
// stops it at start with one line naming the setting; SIGTERM and SIGINT stop it gracefully.
// Deno.cron runs the background jobs (the link sync among them).
import type { Context } from "hono";
import { type StopSignal, stopGracefullyOnSignals } from "../../core/server/graceful-stop.ts";
import { listenAddress, listenFailure } from "../../core/server/listen-address.ts";
import { misconfiguredLine } from "../../core/settings/misconfigured.ts";
import { SettingsError } from "../../core/settings/settings.ts";
import { checkTokenKeys } from "../../core/tokens/verifier.ts";
import { createInstance } from "../instance.ts";
import { createDenoKv } from "../kv/deno-kv.ts";
import { createDenoKvRateLimiter, type DenoKvCounters, type DenoKvU64 } from "../rate-limit/deno-kv.ts";
import { loadTelemetryFactory } from "../telemetry/load.ts";
import { type DenoKvOpener, openKvAt } from "./kv-path.ts";
import { denoLogger } from "./log.ts";
import { settingsFromEnv } from "./settings.ts";
import { closeForStop } from "./stop.ts";

// Only what this file uses of the Deno namespace, so the project's tsc needs no Deno types.
interface DenoGlobal extends DenoKvOpener {
  KvU64: DenoKvU64;
  env: { get(name: string): string | undefined };
  cron(name: string, schedule: string, handler: () => Promise<void>): Promise<void>;
  exit(code: number): never;
  addSignalListener(signal: StopSignal, handler: () => void): void;
  serve(
    options: { port: number; hostname: string; onListen(address: { hostname: string; port: number }): void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
}
const deno = (globalThis as unknown as { Deno: DenoGlobal }).Deno;
const env = (name: string) => deno.env.get(name);

/** Runs a start-up step; a setting it cannot use ends the process with one line naming it. */
async function orExit<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const misconfigured = error instanceof SettingsError ? error : listenFailure(error);
    if (!misconfigured) throw error;
    console.error(misconfiguredLine(misconfigured));
    return deno.exit(1);
  }
}

const { settings, address } = await orExit(() => ({ settings: settingsFromEnv(env), address: listenAddress(env) }));
// No path: Deno Deploy's KV, or a local database in Deno's cache. DENO_KV_PATH=:memory: for tests.
const denoKv = await orExit(() => openKvAt(deno, env("DENO_KV_PATH") || undefined));
const kv = createDenoKv(denoKv);
// Rate limits are counted in the same database, in the background (edge/rate-limit/batched.ts).
const rateLimiter = createDenoKvRateLimiter(denoKv as unknown as DenoKvCounters, deno.KvU64, {
  intervalMs: settings.deno.rateLimitSyncMs,
});
// Deno.serve hands each request's connection beside it, which Hono keeps as `env`.
const clientAddress = (c: Context) =>
  (c.env as { remoteAddr?: { hostname?: string } } | undefined)?.remoteAddr?.hostname;
const { app, background, flushTraces } = await orExit(async () => {
  await checkTokenKeys(settings.auth);
  return createInstance({
    runtime: "deno",
    logger: denoLogger,
    stores: { settings, kv },
    rateLimiter,
    clientAddress,
    createTelemetry: await loadTelemetryFactory(settings),
  });
});

// Deno.cron fires at most once a minute, on the minute; each run runs the jobs every interval until
// the next one. The rest of the minute this process started in is covered the same way: without it
// a fresh process (a deploy, an isolate started on Deno Deploy) would sync nothing for up to a minute.
const CRON_PERIOD_MS = 60_000;
void background.runFor(CRON_PERIOD_MS - (Date.now() % CRON_PERIOD_MS));
void deno.cron("background", "* * * * *", () => background.runFor(CRON_PERIOD_MS));

// Deno Deploy ignores the address and serves on its own; self-hosted, HOST and PORT decide.
const server = await orExit(() =>
  deno.serve(
    {
      ...address,
      // One JSON line, which the local launcher reads to learn the port when PORT=0.
      onListen: ({ hostname, port }) =>
        console.log(JSON.stringify({ event: "listening", url: `http://${hostname}:${port}` })),
    },
    app.fetch,
  ),
);

stopGracefullyOnSignals({
  onSignal: (signal, handler) => {
    // Where a signal cannot be listened to (Windows has no SIGTERM; Deno Deploy stops isolates
    // itself), the platform's own stop applies.
    try {
      deno.addSignalListener(signal, handler);
    } catch {}
  },
  // The counts admitted since the last interval reach the shared counters before the end, and
  // the last requests' spans the collector.
  close: () => closeForStop({ server, rateLimiter, flushTraces }),
  exit: (code) => deno.exit(code),
});
