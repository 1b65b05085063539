// Runs edge/deno/index.ts in the real `deno` binary, with the permissions deno.json grants:
// what `npm start -- --runtime deno` and the conformance suite start.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RawSettings } from "../../core/settings/settings.ts";
import { kvPathFlags } from "../../edge/deno/kv-path.ts";
import { DENO_ENV_NAMES, DRIVER_ENV_NAMES } from "../../edge/deno/settings.ts";
import { environmentWith, listeningEventUrl, type ServerLog, spawnServer } from "./child-server.ts";
import type { KvEntries } from "./planted-kv.ts";

export const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const DENO_BIN = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));
/**
 * How deno.json's tasks call Deno: by path, never by bare name. `deno task` puts node_modules/.bin
 * first on PATH and runs what it finds there as an npm package's JavaScript bin, and npm's `deno`
 * there is the native binary itself, so a bare `deno` in a task fails after `npm install`.
 */
export const DENO_TASK_BIN = "./node_modules/.bin/deno";
/**
 * What `deno task start` puts where the KV file's permissions go: the output of
 * edge/deno/kv-path.ts, read and write for DENO_KV_PATH only (nothing when it is unset).
 */
export const TASK_KV_PATH_FLAGS = `$(${DENO_TASK_BIN} run --allow-env=DENO_KV_PATH edge/deno/kv-path.ts)`;

/**
 * `deno run` (from the project root) with the least it needs: the network, the variables it
 * reads, KV, and `kvFlags` (the KV file's read and write permissions, kvPathFlags).
 */
export const denoRunArgs = (kvFlags: string[] = [], runFlags: string[] = []) => [
  "run",
  ...runFlags,
  "--allow-net",
  `--allow-env=${[...DENO_ENV_NAMES, ...DRIVER_ENV_NAMES].join(",")}`,
  ...kvFlags,
  "--unstable-kv",
  "--unstable-cron",
  "edge/deno/index.ts",
];

export async function startDenoRuntime(
  env: RawSettings,
  {
    port = 0,
    log,
    kvEntries,
    runFlags,
  }: {
    port?: number;
    log?: ServerLog;
    kvEntries?: KvEntries;
    /** Flags of `deno run` beside the permissions (a profile's --inspect). */
    runFlags?: string[];
  } = {},
) {
  const childEnv = environmentWith(env, DENO_ENV_NAMES);
  childEnv.PORT = String(port);
  // The entry listens on every interface by default (a container); a local run stays on this machine.
  childEnv.HOST = "127.0.0.1";
  const planted = kvEntries && childEnv.DENO_KV_PATH === undefined ? await plantedKvFile(kvEntries) : undefined;
  childEnv.DENO_KV_PATH ??= planted?.path ?? ":memory:";
  const server = await spawnDenoServer(denoRunArgs(kvPathFlags(childEnv.DENO_KV_PATH), runFlags), childEnv, log).catch(
    async (error: unknown) => {
      planted?.remove();
      throw error;
    },
  );
  return {
    ...server,
    async close() {
      await server.close();
      planted?.remove();
    },
  };
}

/** A KV file of its own holding `entries`, written by Deno through the server's adapter. */
async function plantedKvFile(entries: KvEntries) {
  const dir = mkdtempSync(join(tmpdir(), "deno-kv-"));
  const path = join(dir, "kv.sqlite");
  const args = ["run", "--unstable-kv", `--allow-read=${path}`, `--allow-write=${path}`];
  const child = spawn(
    DENO_BIN,
    [...args, "--allow-env=PLANTED_KV_PATH,PLANTED_KV_ENTRIES", "dev/launchers/plant-deno-kv.ts"],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, PLANTED_KV_PATH: path, PLANTED_KV_ENTRIES: JSON.stringify(entries), NO_COLOR: "1" },
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`planting the deno runtime's KV entries failed (exit ${code})`);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `deno <args>` and resolves with the URL of the first `{"event":"listening"}` line it prints. */
export function spawnDenoServer(args: string[], env: Record<string, string>, log: ServerLog = "print") {
  const childEnv = { ...env, NO_COLOR: "1" };
  return spawnServer({
    name: "deno runtime",
    command: DENO_BIN,
    args,
    env: childEnv,
    cwd: PROJECT_ROOT,
    log,
    listeningUrl: listeningEventUrl,
  });
}
