// What `deno test` runs: the tests written for Deno alone (`*.test.deno.ts`, e.g. the Deno KV
// adapter against real Deno KV), in the real binary, with native `Deno.test` and node:assert.
// Core itself runs on Deno through the conformance suite (test/conformance/deno.test.ts).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { DENO_BIN, PROJECT_ROOT } from "../launchers/deno.ts";

function filesEndingWith(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesEndingWith(path, suffix);
    return entry.name.endsWith(suffix) ? [path] : [];
  });
}

/** Project-relative paths of the edge's Deno-only tests, sorted. */
export function denoTestFiles(): string[] {
  return filesEndingWith(join(PROJECT_ROOT, "edge"), ".test.deno.ts")
    .map((file) => relative(PROJECT_ROOT, file))
    .sort();
}

/**
 * `deno test` over those files. tsc checks their types, so Deno only runs them. They may read the
 * project (a worker's module) and the system's temporary folder, where a test keeps a KV file of
 * its own, and write only there; they reach loopback only (and a name that never resolves).
 */
export function denoTestCommand(files = denoTestFiles()) {
  const access = [
    `--allow-read=${PROJECT_ROOT},${tmpdir()}`,
    `--allow-write=${tmpdir()}`,
    // Loopback, and a name under .invalid (RFC 6761), which never resolves; the Neon driver reads
    // the two variables the service's own task allows it (deno.json).
    "--allow-net=127.0.0.1,db.invalid",
    "--allow-env=USER,NODE_PG_FORCE_NATIVE",
  ];
  return { command: DENO_BIN, args: ["test", "--no-check", "--unstable-kv", ...access, ...files] };
}

// `npm run test:deno`: the same run by hand.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { command, args } = denoTestCommand();
  process.exitCode = spawnSync(command, args, { cwd: PROJECT_ROOT, stdio: "inherit" }).status ?? 1;
}
