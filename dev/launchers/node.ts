import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RawSettings } from "../../core/settings/settings.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { startNodeService } from "../../edge/node/service.ts";
import { NODE_ENV_NAMES } from "../../edge/node/settings.ts";
import { environmentWith, listeningEventUrl, type ServerLog, serveFromFolder, spawnServer } from "./child-server.ts";
import { type KvEntries, plantKvEntries } from "./planted-kv.ts";

/**
 * Where each launch builds its release: under the repository, as its packages stay imports
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
 * memory, so it takes no planted entries. Each launch builds its own (a second or two), so that
 * no launch builds over another's running release; the build is removed when it closes.
 */
export async function startNodeRelease(
  env: RawSettings,
  { port = 0, log, kvEntries }: { port?: number; log?: ServerLog; kvEntries?: KvEntries } = {},
) {
  if (kvEntries) throw new Error("the node release takes no planted KV entries (its KV is its process's memory)");
  mkdirSync(RELEASE_BUILDS, { recursive: true });
  const dir = mkdtempSync(join(RELEASE_BUILDS, "release-"));
  return serveFromFolder(dir, async () => {
    const { buildNodeRelease } = await import("../build/node.ts");
    const { server } = await buildNodeRelease(join(dir, "dist", "node"));
    return spawnServer({
      name: "node release",
      command: process.execPath,
      args: [server],
      env: { ...environmentWith(env, NODE_ENV_NAMES), HOST: "127.0.0.1", PORT: String(port) },
      log,
      listeningUrl: listeningEventUrl,
    });
  });
}
