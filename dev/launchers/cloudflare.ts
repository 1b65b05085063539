// Runs the bundled worker in real workerd (through Miniflare) as an HTTP server: what
// `npm start -- --runtime cloudflare` and the conformance suite start.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { parse, type TomlTable } from "smol-toml";
import { DEFAULT_RATE_LIMITS, parseRateLimits, type RateLimitName } from "../../core/http/rate-limit-settings.ts";
import { type RawSettings, SETTING_NAMES } from "../../core/settings/settings.ts";
import { WORKERS_SETTING_NAMES } from "../../edge/cloudflare/settings.ts";
import { createWorkersKv, type WorkersKvNamespace } from "../../edge/kv/workers-kv.ts";
import { WORKERS_RATE_LIMIT_BINDINGS } from "../../edge/rate-limit/workers.ts";
import { bundleWorker, type WorkerBundle } from "../build/cloudflare.ts";
import { type KvEntries, plantKvEntries } from "./planted-kv.ts";

const WRANGLER_TOML = fileURLToPath(new URL("../../wrangler.toml", import.meta.url));

const wranglerToml = async () => parse(await readFile(WRANGLER_TOML, "utf8"));

/** The compatibility date and flags deployed with, read from wrangler.toml so both agree. */
export async function workerCompatibility(config?: TomlTable): Promise<{ date: string; flags: string[] }> {
  const { compatibility_date: date, compatibility_flags: flags = [] } = config ?? (await wranglerToml());
  if (typeof date !== "string") throw new Error("wrangler.toml has no compatibility_date");
  if (!Array.isArray(flags) || !flags.every((flag) => typeof flag === "string")) {
    throw new Error("wrangler.toml: compatibility_flags must be a list of strings");
  }
  return { date, flags };
}

/** The name wrangler.toml gives the version metadata binding, if it declares one. */
function versionMetadataBinding(config: TomlTable): string | undefined {
  const binding = (config.version_metadata as { binding?: unknown } | undefined)?.binding;
  return typeof binding === "string" ? binding : undefined;
}

export interface CloudflareRuntimeOptions {
  port?: number;
  kvEntries?: KvEntries;
  /** The worker as built already (its source map with it, for a profile); else built now. */
  bundle?: WorkerBundle;
  /** Where workerd's V8 inspector listens (Chrome DevTools Protocol), if anywhere. */
  inspectorPort?: number;
}

export async function startCloudflareRuntime(
  env: RawSettings,
  { port = 0, kvEntries, bundle: built, inspectorPort }: CloudflareRuntimeOptions = {},
) {
  const [bundle, config] = await Promise.all([built ?? bundleWorker(), wranglerToml()]);
  const compatibility = await workerCompatibility(config);
  const bindings: Record<string, string> = {};
  // Settings are the worker's vars/secrets; every other variable stays out of the isolate.
  for (const name of [...SETTING_NAMES, ...WORKERS_SETTING_NAMES]) {
    const value = env[name];
    if (value !== undefined && value !== "") bindings[name] = value;
  }
  const mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.js", contents: bundle.code }],
    compatibilityDate: compatibility.date,
    compatibilityFlags: compatibility.flags,
    kvNamespaces: ["LINKS"],
    ratelimits: rateLimitBindings(env),
    // Miniflare's stands in for Cloudflare's: a fresh id at each start, no tag.
    versionMetadata: versionMetadataBinding(config),
    bindings,
    host: "127.0.0.1",
    port,
    ...(inspectorPort === undefined ? {} : { inspectorPort }),
  });
  try {
    const url = await mf.ready;
    if (kvEntries) {
      const links = (await mf.getKVNamespace("LINKS")) as unknown as WorkersKvNamespace;
      await plantKvEntries(createWorkersKv(links), kvEntries);
    }
    const stopCron = await fireCronTriggers(mf);
    return {
      url: url.origin,
      async close() {
        stopCron();
        await mf.dispose();
      },
    };
  } catch (error) {
    await mf.dispose().catch(() => {});
    throw error;
  }
}

/**
 * Miniflare's Rate Limiting bindings, with the limits the RATE_LIMIT_* settings give (as a deploy
 * declares them in wrangler.toml); an unusable one is left to the worker to report.
 */
function rateLimitBindings(env: RawSettings) {
  let limits: Record<RateLimitName, number> = DEFAULT_RATE_LIMITS;
  try {
    const parsed = parseRateLimits(env);
    limits = Object.fromEntries(Object.entries(parsed).map(([name, policy]) => [name, policy.limit])) as Record<
      RateLimitName,
      number
    >;
  } catch {}
  return Object.fromEntries(
    (Object.keys(WORKERS_RATE_LIMIT_BINDINGS) as RateLimitName[]).map((name) => [
      WORKERS_RATE_LIMIT_BINDINGS[name],
      { simple: { limit: limits[name], period: 60 } },
    ]),
  );
}

/** How often wrangler.toml's Cron Trigger ("* * * * *") fires. */
const CRON_PERIOD_MS = 60_000;

/**
 * Miniflare runs no Cron Triggers on its own: fire the worker's `scheduled` now and then once a
 * minute, as Cloudflare would. Answers how to stop.
 */
async function fireCronTriggers(mf: Miniflare): Promise<() => void> {
  // The worker's Fetcher (its types come from workers-types, which this project does not load).
  const worker = (await mf.getWorker()) as unknown as { scheduled(options: { cron: string }): Promise<unknown> };
  let stopped = false;
  const fire = () => {
    if (stopped) return;
    worker.scheduled({ cron: "* * * * *" }).catch((error: unknown) => {
      if (!stopped)
        console.error(`scheduled handler failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  };
  fire();
  const timer = setInterval(fire, CRON_PERIOD_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
