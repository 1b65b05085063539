// Runs edge/deno/index.ts in the real `deno` binary, with the permissions deno.json grants:
// what `npm start -- --runtime deno` and the conformance suite start.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { RawSettings } from "../../core/settings.ts";
import { DENO_ENV_NAMES } from "../../edge/deno/settings.ts";

export const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const DENO_BIN = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url));
/**
 * How deno.json's tasks call Deno: by path, never by bare name. `deno task` puts node_modules/.bin
 * first on PATH and runs what it finds there as an npm package's JavaScript bin, and npm's `deno`
 * there is the native binary itself, so a bare `deno` in a task fails after `npm install`.
 */
export const DENO_TASK_BIN = "./node_modules/.bin/deno";
const STARTUP_TIMEOUT_MS = 60_000;

/** `deno run` (from the project root) with the least it needs: the network, the variables it reads, KV. */
export const denoRunArgs = () => [
  "run",
  "--allow-net",
  `--allow-env=${DENO_ENV_NAMES.join(",")}`,
  "--unstable-kv",
  "--unstable-cron",
  "edge/deno/index.ts",
];

export function startDenoRuntime(env: RawSettings, { port = 0 }: { port?: number } = {}) {
  const childEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    // Settings come from `env` only, never leak in from the parent's environment.
    if (value !== undefined && !(DENO_ENV_NAMES as readonly string[]).includes(name)) childEnv[name] = value;
  }
  for (const name of DENO_ENV_NAMES) {
    const value = env[name];
    if (value !== undefined) childEnv[name] = value;
  }
  childEnv.PORT = String(port);
  // The entry listens on every interface by default (a container); a local run stays on this machine.
  childEnv.HOST = "127.0.0.1";
  childEnv.DENO_KV_PATH ??= ":memory:";
  return spawnDenoServer(denoRunArgs(), childEnv);
}

/** Runs `deno <args>` and resolves with the URL of the first `{"event":"listening"}` line it prints. */
export function spawnDenoServer(args: string[], env: Record<string, string>) {
  const childEnv = { ...env, NO_COLOR: "1" };
  const child = spawn(DENO_BIN, args, { cwd: PROJECT_ROOT, env: childEnv, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };

  return new Promise<{ url: string; close(): Promise<void> }>((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      void close().then(() => reject(new Error(`deno runtime did not start: ${reason}`)));
    };
    const timer = setTimeout(() => fail("timed out"), STARTUP_TIMEOUT_MS);
    child.once("error", (error) => fail(error.message));
    const onExit = (code: number | null) => fail(`exited with code ${code}`);
    child.once("exit", onExit);
    // Its stdout is the app's log; the first line announces where it listens.
    const lines = createInterface({ input: child.stdout! });
    let started = false;
    lines.on("line", (line) => {
      if (started) return void console.log(line);
      const url = listeningUrl(line);
      if (!url) return void console.log(line);
      started = true;
      clearTimeout(timer);
      child.off("exit", onExit);
      resolve({ url, close });
    });
  });
}

/** The URL in the entry's "listening" line (edge/deno/index.ts prints it), or undefined. */
export function listeningUrl(line: string): string | undefined {
  try {
    const event = JSON.parse(line) as { event?: string; url?: string };
    return event.event === "listening" ? event.url : undefined;
  } catch {
    return undefined;
  }
}
