import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RawSettings } from "../../core/settings/settings.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { startNodeService } from "../../edge/node/service.ts";
import { NODE_ENV_NAMES } from "../../edge/node/settings.ts";
import { environmentWith, listeningEventUrl, type ServerLog, spawnServer } from "./child-server.ts";
import { type KvEntries, plantKvEntries } from "./planted-kv.ts";

/**
 * Where the release is built for a launch: under the repository, as its packages stay imports
 * that Node resolves from the repository's node_modules; git ignores .cache/.
 */
const RELEASE_BUILDS = fileURLToPath(new URL("../../.cache/node-release/", import.meta.url));

/** Node, in this process: the same service as the production entry, on 127.0.0.1. */
export async function startNodeRuntime(
  env: RawSettings,
  { port, kvEntries }: { port?: number; kvEntries?: KvEntries } = {},
) {
  const kv = createMemoryKv();
  await plantKvEntries(kv, kvEntries);
  return startNodeService(env, { port }, kv);
}

/**
 * Node as it ships: the release (`npm run build:node`, dev/build/node.ts) run as `node index.js`
 * in a process of its own, on 127.0.0.1, its settings from `env` only. Its KV is that process's
 * memory, so it takes no planted entries.
 */
export async function startNodeRelease(
  env: RawSettings,
  { port = 0, log, kvEntries }: { port?: number; log?: ServerLog; kvEntries?: KvEntries } = {},
) {
  if (kvEntries) throw new Error("the node release takes no planted KV entries (its KV is its process's memory)");
  return withReleaseBuild((server) =>
    spawnServer({
      name: "node release",
      command: process.execPath,
      args: [server],
      env: { ...environmentWith(env, NODE_ENV_NAMES), HOST: "127.0.0.1", PORT: String(port) },
      log,
      listeningUrl: listeningEventUrl,
    }),
  );
}

let build: Promise<string> | undefined;
let releasesRunning = 0;

/**
 * Runs `start` on the release's server, built once for every release this process runs at a
 * time (the bench's node and node+otel share one) into a folder named by the process, so that
 * two processes (tests, a bench) never build over each other's running release; the folder is
 * removed when the last of them closes.
 */
async function withReleaseBuild<Server extends { close(): Promise<void> }>(
  start: (server: string) => Promise<Server>,
): Promise<Server> {
  releasesRunning++;
  build ??= buildRelease();
  const started = build.then(start);
  started.catch(releaseEnded);
  const server = await started;
  // Once only, however often it is called (the bench's exit guard closes every runtime again).
  let closed: Promise<void> | undefined;
  return { ...server, close: () => (closed ??= server.close().finally(releaseEnded)) };
}

function releaseEnded() {
  if (--releasesRunning > 0) return;
  build = undefined;
  rmSync(buildDir(process.pid), { recursive: true, force: true });
}

const buildDir = (pid: number) => join(RELEASE_BUILDS, String(pid));

async function buildRelease(): Promise<string> {
  mkdirSync(RELEASE_BUILDS, { recursive: true });
  removeBuildsOfEndedProcesses();
  const { buildNodeRelease } = await import("../build/node.ts");
  return (await buildNodeRelease(join(buildDir(process.pid), "dist", "node"))).server;
}

/** A process that ended with a release running left its build behind: the next build removes it. */
function removeBuildsOfEndedProcesses() {
  for (const name of readdirSync(RELEASE_BUILDS)) {
    if (!isRunning(Number(name))) rmSync(join(RELEASE_BUILDS, name), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}
