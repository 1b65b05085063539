// Starts the bare-KV-get baseline of a runtime, the way the bench starts the service: node built
// and in a process of its own, the Worker in workerd, the script in the deno binary, the wasm on
// Viceroy.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Platform } from "esbuild";
import {
  inheritedEnvironment,
  listeningEventUrl,
  serveFromFolder,
  spawnServer,
} from "../../../dev/launchers/child-server.ts";
import type { RuntimeName } from "../../../edge/runtimes.ts";
import { BASELINE_PATH } from "./handler.ts";

interface RunningBaseline {
  url: string;
  close(): Promise<void>;
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * `file` and everything it imports as one ES module, built as what ships is (no keep-names), and
 * its source map, whose sources are relative to `mapPath`.
 */
async function bundle(file: string, platform?: Platform): Promise<{ code: string; map: string; mapPath: string }> {
  const outfile = here(file).replace(/\.ts$/, ".js");
  const built = await build({
    entryPoints: [here(file)],
    bundle: true,
    format: "esm",
    ...(platform ? { platform } : {}),
    write: false,
    outfile,
    sourcemap: "external",
    logLevel: "silent",
  });
  const text = (path: string) => built.outputFiles.find((output) => output.path === path)!.text;
  return { code: text(outfile), map: text(`${outfile}.map`), mapPath: `${outfile}.map` };
}

// One per runtime of edge/runtimes.ts: the bench compares each runtime's lookups with its own.
const baselines: Record<RuntimeName, () => Promise<RunningBaseline>> = {
  async node() {
    // Everything bundled, so it runs from a folder of its own, removed when it stops.
    const { code } = await bundle("./node.ts", "node");
    const dir = mkdtempSync(join(tmpdir(), "kv-baseline-"));
    return serveFromFolder(dir, () => {
      writeFileSync(join(dir, "node.mjs"), code);
      return spawnServer({
        name: "node bare KV get",
        command: process.execPath,
        args: [join(dir, "node.mjs")],
        env: inheritedEnvironment(),
        listeningUrl: listeningEventUrl,
      });
    });
  },
  cloudflare: () => launchWorkersBaseline(),
  async deno() {
    const { spawnDenoServer } = await import("../../../dev/launchers/deno.ts");
    const args = ["run", "--allow-net=127.0.0.1", "--unstable-kv", "bench/measure/kv-baseline/deno.ts"];
    return spawnDenoServer(args, inheritedEnvironment());
  },
  fastly: () => launchFastlyBaseline("bare"),
};

export const launchKvBaseline = (runtime: RuntimeName): Promise<RunningBaseline> => baselines[runtime]();

/**
 * The bare get as a Worker in workerd, as the service runs there (`worker.js`, wrangler.toml's
 * compatibility); with `inspectorPort`, workerd's V8 inspector listens there. Its source map
 * comes back for a profile to read its frames by.
 */
export async function launchWorkersBaseline(
  inspectorPort?: number,
): Promise<RunningBaseline & { map: string; mapPath: string }> {
  const [{ Miniflare }, { workerCompatibility }] = await Promise.all([
    import("miniflare"),
    import("../../../dev/launchers/cloudflare.ts"),
  ]);
  const [compatibility, { code, map, mapPath }] = await Promise.all([workerCompatibility(), bundle("./workers.ts")]);
  const mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.js", contents: code }],
    compatibilityDate: compatibility.date,
    compatibilityFlags: compatibility.flags,
    kvNamespaces: ["LINKS"],
    host: "127.0.0.1",
    port: 0,
    ...(inspectorPort === undefined ? {} : { inspectorPort }),
  });
  const url = await mf.ready.catch(async (error: unknown) => {
    await mf.dispose().catch(() => {});
    throw error;
  });
  return { url: url.origin, close: () => mf.dispose(), map, mapPath };
}

/** Stores the value a baseline's bare get reads (its PUT), before it is measured. */
export async function storeBaselineValue(url: string, value: string): Promise<void> {
  const answer = await fetch(`${url}${BASELINE_PATH}`, { method: "PUT", body: value });
  await answer.arrayBuffer();
  if (!answer.ok) throw new Error(`PUT ${BASELINE_PATH}: HTTP ${answer.status}`);
}

/** Each Fastly build of the bare get: alone, or holding the modules the service's app is built from. */
const FASTLY_BASELINES = {
  bare: { entry: "fastly.ts", wasm: "kv-baseline.wasm", sourceDirs: ["edge/kv", "edge/fastly", "core/ports"] },
  "holding-app": { entry: "fastly-holding-app.ts", wasm: "kv-baseline-holding-app.wasm", sourceDirs: ["edge", "core"] },
};

/** The bare get's wasm on Viceroy, built from this folder when missing or stale. */
export async function launchFastlyBaseline(build: keyof typeof FASTLY_BASELINES): Promise<RunningBaseline> {
  const [{ ensureFastlyWasm, ROOT }, { FASTLY_MANIFEST }, { runManifest }, { startViceroy }] = await Promise.all([
    import("../../../dev/build/fastly.ts"),
    import("../../../dev/launchers/fastly.ts"),
    import("../../../dev/launchers/fastly-manifest.ts"),
    import("../../../dev/launchers/viceroy.ts"),
  ]);
  const { entry, wasm, sourceDirs } = FASTLY_BASELINES[build];
  // Its own wasm, never deployed: built from this folder, what it imports and Fastly's bindings.
  const wasmPath = await ensureFastlyWasm({
    entry: join(ROOT, "bench", "measure", "kv-baseline", entry),
    wasmPath: join(ROOT, "bin", wasm),
    sourceDirs: ["bench/measure/kv-baseline", ...sourceDirs, "dev/build"],
  });
  // The service's manifest: the same KV Store (edge_cache), empty; nothing else is used.
  const { toml, secretEnv } = runManifest(FASTLY_MANIFEST, {});
  return startViceroy({ wasmPath, manifest: toml, env: secretEnv, port: 0 });
}
