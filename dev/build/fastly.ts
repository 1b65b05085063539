// `npm run build:fastly`: compiles the service into bin/main.wasm with @fastly/js-compute (offline).
// Launchers call `ensureFastlyWasm()`, which builds only when the sources changed since the last
// build (a hash of them is kept beside the wasm), so a fresh clone builds on first use.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WASM_PATH = join(ROOT, "bin", "main.wasm");
const STAMP_PATH = `${WASM_PATH}.sources-sha256`;
const LOCK_PATH = join(ROOT, "bin", ".build-lock");
const ENTRY = join(ROOT, "edge", "fastly", "index.ts");
// What ends up in the wasm: the service, core, the Neon port, and the exact dependency versions.
const SOURCE_DIRS = ["core", "edge/fastly", "edge/kv", "edge/neon"];
const SOURCE_FILES = ["package-lock.json"];
const STALE_LOCK_MS = 5 * 60_000;

/** Builds bin/main.wasm unless it was built from the current sources; returns its path. */
export async function ensureFastlyWasm(): Promise<string> {
  const hash = await sourcesHash();
  if (await isBuiltFrom(hash)) return WASM_PATH;
  await withBuildLock(async () => {
    // Another process may have built it while this one waited.
    if (!(await isBuiltFrom(hash))) await buildFastlyWasm(hash);
  });
  return WASM_PATH;
}

async function buildFastlyWasm(hash?: string): Promise<void> {
  const stamp = hash ?? (await sourcesHash());
  await mkdir(join(ROOT, "bin"), { recursive: true });
  // Written aside and renamed, so no reader ever sees half a wasm.
  const partial = join(ROOT, "bin", `.main-${process.pid}.wasm`);
  const cli = join(ROOT, "node_modules", ".bin", "js-compute-runtime");
  try {
    await promisify(execFile)(cli, [ENTRY, partial], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    await rename(partial, WASM_PATH);
    await writeFile(STAMP_PATH, `${stamp}\n`);
  } finally {
    await rm(partial, { force: true });
  }
}

async function isBuiltFrom(hash: string): Promise<boolean> {
  const stamp = await readFile(STAMP_PATH, "utf8").catch(() => "");
  const wasm = await stat(WASM_PATH).catch(() => undefined);
  return stamp.trim() === hash && wasm !== undefined;
}

async function sourcesHash(): Promise<string> {
  const hash = createHash("sha256");
  const files = [...(await Promise.all(SOURCE_DIRS.map((dir) => sourceFiles(join(ROOT, dir))))).flat(), ...SOURCE_FILES.map((f) => join(ROOT, f))];
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
  while (!(await mkdir(LOCK_PATH).then(() => true, () => false))) {
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
  await buildFastlyWasm();
  const { size } = await stat(WASM_PATH);
  console.log(`${relative(process.cwd(), WASM_PATH)}: ${(size / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
