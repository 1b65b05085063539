// `npm start -- --runtime fastly`, the conformance suite and the benchmark: the compiled service
// (bin/main.wasm, built here when missing or stale) served by Viceroy, Fastly's local runtime,
// with fastly.toml's [local_server] pointed at this run (fastly-manifest.ts). Without viceroy
// nothing starts: the error is the one line that says how to install it.
import { join } from "node:path";
import type { RawSettings } from "../../core/settings/settings.ts";
import { ensureFastlyWasm, ROOT } from "../build/fastly.ts";
import type { ServerLog } from "./child-server.ts";
import { runManifest } from "./fastly-manifest.ts";
import type { KvEntries } from "./planted-kv.ts";
import { findViceroy, startViceroy, VICEROY_MISSING } from "./viceroy.ts";

export const FASTLY_MANIFEST = join(ROOT, "fastly.toml");

export async function startFastlyRuntime(
  env: RawSettings,
  { port = 8787, kvEntries, log }: { port?: number; kvEntries?: KvEntries; log?: ServerLog } = {},
) {
  // Before the build: a missing runtime is said at once, not after a wasm nobody can serve.
  if (!findViceroy()) throw new Error(VICEROY_MISSING);
  const wasmPath = await ensureFastlyWasm();
  const { toml, secretEnv } = runManifest(FASTLY_MANIFEST, env, kvEntries);
  return startViceroy({ wasmPath, manifest: toml, env: secretEnv, port, log });
}
