// `npm run build:fastly`: compiles the service into bin/main.wasm with @fastly/js-compute (offline).
// The service is bundled as it is written, by esbuild, minified (js-compute snapshots the engine
// after it has parsed the script, so a smaller script is a smaller wasm). The wasm is what
// js-compute-runtime writes, as Fastly's own toolchain (`fastly compute build`) makes it: no pass
// of this project's runs over it.
// Launchers call `ensureFastlyWasm()`, which builds only when the sources changed since the last
// build (a hash of them is kept beside the wasm), so a fresh clone builds on first use.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build, type Metafile, type Plugin } from "esbuild";
import { packageOf } from "../support/packages.ts";
import { UNUSED_SCHEMA_LIBRARIES } from "./cloudflare.ts";
import { wasmSections } from "./wasm-sections.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const LOCK_PATH = join(ROOT, "bin", ".build-lock");
// Files every wasm may import besides its folders: the service's wiring and the lock of its packages.
const SOURCE_FILES = ["package-lock.json", "edge/instance.ts", "edge/runtimes.ts"];
const STALE_LOCK_MS = 5 * 60_000;

/** One wasm this project compiles: its entry, where it goes, and the folders it is built from. */
export interface WasmTarget {
  entry: string;
  wasmPath: string;
  sourceDirs: string[];
}

/** The service: core, the Fastly entry, the KV stores and the Neon port. */
const SERVICE_WASM: WasmTarget = {
  entry: join(ROOT, "edge", "fastly", "index.ts"),
  wasmPath: join(ROOT, "bin", "main.wasm"),
  sourceDirs: ["core", "edge/fastly", "edge/kv", "edge/neon", "dev/build"],
};

const stampPath = (target: WasmTarget) => `${target.wasmPath}.sources-sha256`;

/** Builds the target's wasm unless it was built from the current sources; returns its path. */
export async function ensureFastlyWasm(target: WasmTarget = SERVICE_WASM): Promise<string> {
  const hash = await sourcesHash(target);
  if (await isBuiltFrom(target, hash)) return target.wasmPath;
  await withBuildLock(async () => {
    // Another process may have built it while this one waited.
    if (!(await isBuiltFrom(target, hash))) await buildFastlyWasm(hash, target);
  });
  return target.wasmPath;
}

interface FastlyBuildReport {
  wasmBytes: number;
  /** The engine's and the service's compiled code (the wasm code section). */
  codeBytes: number;
  /** The memory snapshot taken after the script was parsed and run (the data section). */
  snapshotBytes: number;
  /** The minified script js-compute was given, and what each package adds to it. */
  inputBytes: number;
  inputByPackage: Record<string, number>;
}

async function buildFastlyWasm(hash?: string, target: WasmTarget = SERVICE_WASM): Promise<FastlyBuildReport> {
  const stamp = hash ?? (await sourcesHash(target));
  await mkdir(join(ROOT, "bin"), { recursive: true });
  // Written aside and renamed, so no reader ever sees half a wasm.
  const partial = join(ROOT, "bin", `.main-${process.pid}.wasm`);
  // Outside the project: js-compute bundles it again, and must not find the unused schema libraries.
  const input = join(tmpdir(), `edge-race-free-input-${process.pid}.js`);
  const cli = join(ROOT, "node_modules", ".bin", "js-compute-runtime");
  try {
    const { text, metafile } = await minifiedInput(target.entry);
    await writeFile(input, text);
    await promisify(execFile)(cli, [input, partial], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    const wasm = await readFile(partial);
    await rename(partial, target.wasmPath);
    await writeFile(stampPath(target), `${stamp}\n`);
    const sections = wasmSections(wasm);
    const output = Object.values(metafile.outputs)[0]!;
    return {
      wasmBytes: wasm.byteLength,
      codeBytes: sections.code,
      snapshotBytes: sections.data,
      inputBytes: output.bytes,
      inputByPackage: bytesByPackage(output.inputs),
    };
  } finally {
    await rm(partial, { force: true });
    await rm(input, { force: true });
  }
}

/**
 * OpenTelemetry's packages pick their platform (`./platform`) through package.json's `browser`
 * map, which esbuild applies only for the browser platform; the Node one imports `util`, which
 * Compute lacks. Their browser platform is Web-standard.
 */
const openTelemetryWithoutNode: Plugin = {
  name: "opentelemetry-without-node",
  setup(build) {
    build.onResolve({ filter: /^(\.\.?\/)+platform$/ }, (args) =>
      args.importer.includes("/node_modules/@opentelemetry/")
        ? { path: join(args.resolveDir, args.path, "browser/index.js") }
        : undefined,
    );
  },
};

/** The service as one minified ES module; `fastly:*` stays for js-compute to provide. */
export async function minifiedInput(entry = SERVICE_WASM.entry): Promise<{ text: string; metafile: Metafile }> {
  const result = await build({
    entryPoints: [entry],
    outfile: "service.js",
    write: false,
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    external: ["fastly:*", ...UNUSED_SCHEMA_LIBRARIES],
    plugins: [openTelemetryWithoutNode],
    // Mangled names are safe here: errors name themselves (`name = "…"`), nothing reads a class name.
    minify: true,
    metafile: true,
    logLevel: "silent",
  });
  return { text: result.outputFiles[0]!.text, metafile: result.metafile };
}

/** Minified bytes per npm package (or per folder of this project). */
function bytesByPackage(inputs: Record<string, { bytesInOutput: number }>): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const inModules = path.split("node_modules/")[1];
    const name = inModules ? packageOf(inModules) : path.split("/").slice(0, 2).join("/");
    totals[name] = (totals[name] ?? 0) + bytesInOutput;
  }
  return Object.fromEntries(Object.entries(totals).sort((a, b) => b[1] - a[1]));
}

async function isBuiltFrom(target: WasmTarget, hash: string): Promise<boolean> {
  const stamp = await readFile(stampPath(target), "utf8").catch(() => "");
  const wasm = await stat(target.wasmPath).catch(() => undefined);
  return stamp.trim() === hash && wasm !== undefined;
}

async function sourcesHash(target: WasmTarget): Promise<string> {
  const hash = createHash("sha256");
  const files = [
    ...(await Promise.all(target.sourceDirs.map((dir) => sourceFiles(join(ROOT, dir))))).flat(),
    ...SOURCE_FILES.map((f) => join(ROOT, f)),
  ];
  for (const file of files.sort()) {
    hash.update(`${relative(ROOT, file)}\0`);
    hash.update(await readFile(file));
  }
  return hash.digest("hex");
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(ts|js|json)$/.test(entry.name) && !entry.name.endsWith(".test.ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** One build at a time across processes (test files run in parallel workers). */
async function withBuildLock(build: () => Promise<void>): Promise<void> {
  await mkdir(join(ROOT, "bin"), { recursive: true });
  while (
    !(await mkdir(LOCK_PATH).then(
      () => true,
      () => false,
    ))
  ) {
    if (await isStaleLock()) await rm(LOCK_PATH, { recursive: true, force: true });
    else await new Promise((resolve) => setTimeout(resolve, 250));
  }
  try {
    await writeFile(join(LOCK_PATH, "pid"), String(process.pid));
    await build();
  } finally {
    await rm(LOCK_PATH, { recursive: true, force: true });
  }
}

/** Left behind by a process that died while building, or older than any build takes. */
async function isStaleLock(): Promise<boolean> {
  const lock = await stat(LOCK_PATH).catch(() => undefined);
  if (!lock) return false;
  if (Date.now() - lock.mtimeMs > STALE_LOCK_MS) return true;
  const pid = Number(await readFile(join(LOCK_PATH, "pid"), "utf8").catch(() => ""));
  if (!pid) return Date.now() - lock.mtimeMs > 10_000;
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const report = await buildFastlyWasm();
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(
    `${relative(process.cwd(), SERVICE_WASM.wasmPath)}: ${mb(report.wasmBytes)} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(`  code (engine + service):      ${mb(report.codeBytes)}`);
  console.log(`  memory snapshot (data):       ${mb(report.snapshotBytes)}`);
  console.log(`  minified input:               ${kb(report.inputBytes)}`);
  for (const [name, bytes] of Object.entries(report.inputByPackage)) console.log(`    ${name.padEnd(28)}${kb(bytes)}`);
}
