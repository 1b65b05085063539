// What `deno test` runs: core's unit test files that need no database or local stack (in-memory
// ports only; the rest run under vitest alone, against PGlite and PostgreSQL), and the Deno-only
// tests of the edge (`*.deno-test.ts`, e.g. the Deno KV adapter against real Deno KV).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { DENO_BIN, PROJECT_ROOT } from "../launchers/deno.ts";

const CORE_DIR = join(PROJECT_ROOT, "core");
const EDGE_DIR = join(PROJECT_ROOT, "edge");

/** Imports that mean a file needs the database harness or a Node-only part of the project. */
const NEEDS_STACK = [/test\/support\/(harness|postgres)\.ts$/, /(^|\/)edge\//, /^pg$/, /^@electric-sql\/pglite/];

function importsOf(source: string): string[] {
  return [...source.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)].map((m) => (m[1] ?? m[2])!);
}

function testFiles(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path, suffix);
    return entry.name.endsWith(suffix) ? [path] : [];
  });
}

/** Project-relative paths of core's test files that run on in-memory ports only, sorted. */
export function denoCoreTestFiles(): string[] {
  return testFiles(CORE_DIR, ".test.ts")
    .filter((file) => !importsOf(readFileSync(file, "utf8")).some((spec) => NEEDS_STACK.some((re) => re.test(spec))))
    .map((file) => relative(PROJECT_ROOT, file))
    .sort();
}

/** The edge's tests written for Deno alone. */
export function denoOnlyTestFiles(): string[] {
  return testFiles(EDGE_DIR, ".deno-test.ts").map((file) => relative(PROJECT_ROOT, file)).sort();
}

/**
 * `deno test` over those files. Types are checked by tsc against vitest's own declarations
 * (the shim's are looser), so Deno only runs them. Granted: KV, reading core/ (the runtime-agnostic
 * test reads sources) and the colour variables @vitest/expect's printer looks at.
 */
export function denoTestCommand(files = [...denoCoreTestFiles(), ...denoOnlyTestFiles()]) {
  const env = "--allow-env=FORCE_TTY,NO_COLOR,FORCE_COLOR,TERM,CI";
  return { command: DENO_BIN, args: ["test", "--no-check", "--unstable-kv", "--allow-read=core", env, ...files] };
}

// `npx tsx dev/deno/core-tests.ts`: the same run by hand.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { command, args } = denoTestCommand();
  process.exitCode = spawnSync(command, args, { cwd: PROJECT_ROOT, stdio: "inherit" }).status ?? 1;
}
