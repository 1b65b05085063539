// Runs the bundled worker in real workerd (through Miniflare) as an HTTP server: what
// `npm start -- --runtime cloudflare` and the conformance suite start.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { parse } from "smol-toml";
import { SETTING_NAMES, type RawSettings } from "../../core/settings.ts";
import { bundleWorker } from "../build/cloudflare.ts";

const WRANGLER_TOML = fileURLToPath(new URL("../../wrangler.toml", import.meta.url));

/** The compatibility date and flags deployed with, read from wrangler.toml so both agree. */
export async function workerCompatibility(): Promise<{ date: string; flags: string[] }> {
  const { compatibility_date: date, compatibility_flags: flags = [] } = parse(await readFile(WRANGLER_TOML, "utf8"));
  if (typeof date !== "string") throw new Error("wrangler.toml has no compatibility_date");
  if (!Array.isArray(flags) || !flags.every((flag) => typeof flag === "string")) {
    throw new Error("wrangler.toml: compatibility_flags must be a list of strings");
  }
  return { date, flags };
}

export async function startCloudflareRuntime(env: RawSettings, { port = 0 }: { port?: number } = {}) {
  const [bundle, compatibility] = await Promise.all([bundleWorker(), workerCompatibility()]);
  // The settings a worker receives as vars/secrets; every other variable stays out of the isolate.
  const bindings: Record<string, string> = {};
  for (const name of SETTING_NAMES) {
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
