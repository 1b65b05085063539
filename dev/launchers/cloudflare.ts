// Runs the bundled worker in real workerd (through Miniflare) as an HTTP server: what
// `npm start -- --runtime cloudflare` and the conformance suite start.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { SETTING_NAMES, type RawSettings } from "../../core/settings.ts";
import { bundleWorker } from "../build/cloudflare.ts";

const WRANGLER_TOML = fileURLToPath(new URL("../../wrangler.toml", import.meta.url));

/** Settings a worker receives as vars/secrets; every other variable stays out of the isolate. */
export const WORKER_SETTING_NAMES = SETTING_NAMES;

/** The compatibility date and flags deployed with, read from wrangler.toml so both agree. */
export async function workerCompatibility(): Promise<{ date: string; flags: string[] }> {
  const toml = await readFile(WRANGLER_TOML, "utf8");
  const date = toml.match(/^compatibility_date\s*=\s*"([^"]+)"/m)?.[1];
  if (!date) throw new Error("wrangler.toml has no compatibility_date");
  const flags = toml.match(/^compatibility_flags\s*=\s*\[([^\]]*)\]/m)?.[1];
  return { date, flags: flags ? [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!) : [] };
}

export async function startCloudflareRuntime(env: RawSettings, { port = 0 }: { port?: number } = {}) {
  const [bundle, compatibility] = await Promise.all([bundleWorker(), workerCompatibility()]);
  const bindings: Record<string, string> = {};
  for (const name of WORKER_SETTING_NAMES) {
    const value = env[name];
    if (value !== undefined && value !== "") bindings[name] = value;
  }
  const mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.js", contents: bundle.code }],
    compatibilityDate: compatibility.date,
    compatibilityFlags: compatibility.flags,
    kvNamespaces: ["LINKS"],
    bindings,
    host: "127.0.0.1",
    port,
  });
  try {
    const url = await mf.ready;
    return { url: url.origin, close: () => mf.dispose() };
  } catch (error) {
    await mf.dispose().catch(() => {});
    throw error;
  }
}
