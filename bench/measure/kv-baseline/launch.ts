// Starts the bare-KV-get baseline of a runtime, the way dev/launchers/ start the service: node in
// process, the Worker in workerd, the script in the deno binary, the wasm on Viceroy.

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { createMemoryKv } from "../../../edge/kv/memory.ts";
import { listen } from "../../../edge/node/server.ts";
import type { RuntimeName } from "../../../edge/runtimes.ts";
import { kvBaselineHandler } from "./handler.ts";

interface RunningBaseline {
  url: string;
  close(): Promise<void>;
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

// One per runtime of edge/runtimes.ts: the bench compares each runtime's lookups with its own.
const baselines: Record<RuntimeName, () => Promise<RunningBaseline>> = {
  node: () => listen(kvBaselineHandler(createMemoryKv()), { port: 0 }),
  async cloudflare() {
    const [{ Miniflare }, { workerCompatibility }] = await Promise.all([
      import("miniflare"),
      import("../../../dev/launchers/cloudflare.ts"),
    ]);
    const bundled = await build({
      entryPoints: [here("./workers.ts")],
      bundle: true,
      format: "esm",
      write: false,
      logLevel: "silent",
    });
    const compatibility = await workerCompatibility();
    const mf = new Miniflare({
      modules: [{ type: "ESModule", path: "worker.js", contents: bundled.outputFiles[0]!.text }],
      compatibilityDate: compatibility.date,
      compatibilityFlags: compatibility.flags,
      kvNamespaces: ["LINKS"],
      host: "127.0.0.1",
      port: 0,
    });
    const url = await mf.ready.catch(async (error: unknown) => {
      await mf.dispose().catch(() => {});
      throw error;
    });
    return { url: url.origin, close: () => mf.dispose() };
  },
  async deno() {
    const { spawnDenoServer } = await import("../../../dev/launchers/deno.ts");
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
    return spawnDenoServer(["run", "--allow-net=127.0.0.1", "--unstable-kv", "bench/measure/kv-baseline/deno.ts"], env);
  },
  async fastly() {
    const [{ ensureFastlyWasm, ROOT }, { FASTLY_MANIFEST }, { runManifest }, { startViceroy }] = await Promise.all([
      import("../../../dev/build/fastly.ts"),
      import("../../../dev/launchers/fastly.ts"),
      import("../../../dev/launchers/fastly-manifest.ts"),
      import("../../../dev/launchers/viceroy.ts"),
    ]);
    // Its own wasm, never deployed: built from this folder, the KV stores and Fastly's bindings.
    const wasmPath = await ensureFastlyWasm({
      entry: join(ROOT, "bench", "measure", "kv-baseline", "fastly.ts"),
      wasmPath: join(ROOT, "bin", "kv-baseline.wasm"),
      sourceDirs: ["bench/measure/kv-baseline", "edge/kv", "edge/fastly", "core/ports", "dev/build"],
    });
    // The service's manifest: the same KV Store (edge_cache), empty; nothing else is used.
    const { toml, secretEnv } = runManifest(FASTLY_MANIFEST, {});
    return startViceroy({ wasmPath, manifest: toml, env: secretEnv, port: 0 });
  },
};

export const launchKvBaseline = (runtime: RuntimeName): Promise<RunningBaseline> => baselines[runtime]();
