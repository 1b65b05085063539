// Binaryen's wasm-opt around js-compute's build: the engine (js-compute's SpiderMonkey, ~10 MB of
// code) is optimized for size once per engine version and kept, and each built service drops the
// code only its build-time initialization could reach (gone from the exports once snapshotted).
// Together ~0.4 MB of code (docs/benchmarks.md, "The wasm's size").
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const WASM_OPT = (root: string) => join(root, "node_modules", ".bin", "wasm-opt");
const ENGINE = (root: string) => join(root, "node_modules", "@fastly", "js-compute", "fastly.wasm");
// -Oz without memory-packing: the engine's data is laid out again by the snapshot anyway.
const ENGINE_PASSES = ["-Oz", "--skip-pass=memory-packing"];

const run = promisify(execFile);

/**
 * js-compute's engine optimized for size, made on first use (about a minute) and kept under
 * node_modules/.cache, keyed by the engine's bytes, wasm-opt's version and the passes.
 */
export async function optimizedEngine(root: string): Promise<string> {
  const [engine, { stdout: version }] = await Promise.all([readFile(ENGINE(root)), run(WASM_OPT(root), ["--version"])]);
  const key = createHash("sha256").update(engine).update(version).update(ENGINE_PASSES.join(" ")).digest("hex");
  const dir = join(root, "node_modules", ".cache", "edge-race-free");
  const optimized = join(dir, `fastly-engine-${key.slice(0, 16)}.wasm`);
  if (await stat(optimized).catch(() => undefined)) return optimized;
  await mkdir(dir, { recursive: true });
  console.error("Optimizing js-compute's engine for size (once per engine version, about a minute)…");
  const partial = `${optimized}.${process.pid}`;
  try {
    await run(WASM_OPT(root), [ENGINE(root), "-o", partial, ...ENGINE_PASSES], { maxBuffer: 16 * 1024 * 1024 });
    await rename(partial, optimized);
  } finally {
    await rm(partial, { force: true });
  }
  return optimized;
}

/**
 * Removes what no export, table entry or start function reaches any more, and the runs of zeros
 * the snapshot's data segments still carry (memory-packing splits a segment around them), in place.
 */
export async function dropUnreachableCode(root: string, wasmPath: string): Promise<void> {
  await run(WASM_OPT(root), [wasmPath, "-o", wasmPath, "--remove-unused-module-elements", "--memory-packing"], {
    maxBuffer: 16 * 1024 * 1024,
  });
}
