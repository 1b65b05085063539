// The servers a KV-hit profile is taken of (run.ts), each under the V8 inspector in a process of
// its own: the runtime's bare KV get (bench/measure/kv-baseline/) or the service as `npm start`
// runs it, its KV holding the planted link. Node's and the Worker run as built for release, and
// say where each frame's function was written (their source maps); Deno runs its TypeScript.
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { bundleWorker, WORKER_OUTFILE } from "../../../dev/build/cloudflare.ts";
import { serveFromFolder } from "../../../dev/launchers/child-server.ts";
import { startCloudflareRuntime } from "../../../dev/launchers/cloudflare.ts";
import { spawnDenoServer, startDenoRuntime } from "../../../dev/launchers/deno.ts";
import type { KvEntries } from "../../../dev/launchers/planted-kv.ts";
import { freePort } from "../../../dev/support/free-port.ts";
import { TEST_AUTH_SECRET } from "../../../dev/support/tokens.ts";
import { kvPathFlags } from "../../../edge/deno/kv-path.ts";
import { launchWorkersBaseline } from "../kv-baseline/launch.ts";
import type { SourceOf } from "./cpu-profile.ts";
import type { PROFILED_RUNTIMES } from "./options.ts";
import { bundleSources, mappedSources } from "./source-map.ts";

/** Where node's servers are built, inside the project so that their packages resolve. */
const PROFILE_BUILDS = fileURLToPath(new URL("../../../.cache/kv-hit-profile/", import.meta.url));

export const APP_ENV = {
  AUTH_SECRET: TEST_AUTH_SECRET,
  // The development key, as `npm start` runs it: a deployment would refuse it without its scope.
  AUTH_SECRET_SCOPE: "local",
  SERVER_TIMING: "on",
  LINK_CACHE_TTL_SECONDS: "3600",
  // Never reached by a KV hit; the sync's timer stays quiet for the run.
  DATABASE_URL: "postgres://profile@127.0.0.1:9/none",
  NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
  LINK_SYNC_INTERVAL_SECONDS: "3600",
};

/** Starts a runtime's bare get (`baseline`) or the service (`app`, its KV holding `entries`). */
type StartServer = (kind: "baseline" | "app", entries: KvEntries, appEnv?: Record<string, string>) => Promise<Server>;

export interface Server {
  url: string;
  inspector: number;
  /** The inspector's target to profile, where it has several. */
  target?: string;
  /** Where a frame's function was written, when the server runs a bundle. */
  sourceOf?: SourceOf;
  close(): Promise<void>;
}

/**
 * serve-node.ts as one module with its source map, as the release is built (no keep-names, which
 * tsx adds to every function), in a folder of .cache with the server's log, removed when it
 * stops: there its packages resolve from the project's node_modules, as the release's do.
 */
const nodeServer: StartServer = async (kind, entries, appEnv = APP_ENV) => {
  const inspector = await freePort();
  await mkdir(PROFILE_BUILDS, { recursive: true });
  const dir = mkdtempSync(join(PROFILE_BUILDS, "node-"));
  const file = join(dir, "serve-node.mjs");
  return serveFromFolder(dir, async () => {
    await build({
      entryPoints: [fileURLToPath(new URL("./serve-node.ts", import.meta.url))],
      outfile: file,
      bundle: true,
      packages: "external",
      format: "esm",
      platform: "node",
      target: "node20",
      sourcemap: "external",
      logLevel: "silent",
    });
    const log = openSync(join(dir, "stdout.log"), "w");
    const child = spawn(process.execPath, [`--inspect=127.0.0.1:${inspector}`, file, kind], {
      env: { ...process.env, ...appEnv, PROFILE_KV_ENTRIES: JSON.stringify(entries) },
      stdio: ["ignore", log, "pipe"],
    });
    closeSync(log);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const lines = createInterface({ input: child.stderr! });
    const url = await new Promise<string>((resolve, reject) => {
      lines.on("line", (line) =>
        line.startsWith('{"url"') ? resolve((JSON.parse(line) as { url: string }).url) : console.error(line),
      );
      child.once("exit", (code) => reject(new Error(`the ${kind} server exited (${code})`)));
    });
    return {
      url,
      inspector,
      sourceOf: bundleSources(file),
      close: async () => {
        child.kill();
        await exited;
      },
    };
  });
};

const denoServer: StartServer = async (kind, entries, appEnv = APP_ENV) => {
  const inspector = await freePort();
  const inspect = `--inspect=127.0.0.1:${inspector}`;
  if (kind === "app") {
    const server = await startDenoRuntime(appEnv, { log: "file", kvEntries: entries, runFlags: [inspect] });
    return { url: server.url, inspector, close: server.close };
  }
  // The service's KV is a planted file (it has no database to fill its KV from): the bare get
  // reads a file of its own, so both sides read the same kind of store.
  const dir = mkdtempSync(join(tmpdir(), "profile-kv-"));
  const path = join(dir, "kv.sqlite3");
  const server = await spawnDenoServer(
    [
      "run",
      inspect,
      "--allow-net=127.0.0.1",
      ...kvPathFlags(path),
      "--unstable-kv",
      "bench/measure/kv-baseline/deno.ts",
      path,
    ],
    { ...(process.env as Record<string, string>) },
    "file",
  );
  return {
    url: server.url,
    inspector,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** The worker Miniflare runs the script it is given as (workerd names the inspector's target so). */
const WORKERS_TARGET = "core:user:";

/**
 * The Worker in workerd through Miniflare, with workerd's inspector open: the service as `npm
 * start` runs it, minified as deployed, or the bare get; frames read back through each bundle's map.
 */
const cloudflareServer: StartServer = async (kind, entries, appEnv = APP_ENV) => {
  const inspector = await freePort();
  if (kind === "baseline") {
    const { url, close, map, mapPath } = await launchWorkersBaseline(inspector);
    return { url, inspector, target: WORKERS_TARGET, sourceOf: mappedSources("worker.js", map, mapPath), close };
  }
  const bundle = await bundleWorker({ sourceMap: true });
  const server = await startCloudflareRuntime(appEnv, { kvEntries: entries, inspectorPort: inspector, bundle });
  return {
    url: server.url,
    inspector,
    target: WORKERS_TARGET,
    sourceOf: mappedSources("worker.js", bundle.map!, `${WORKER_OUTFILE}.map`),
    close: server.close,
  };
};

/** Each profiled runtime's way to start its bare get (`baseline`) or the service (`app`) under the inspector. */
export const profiledServers = { node: nodeServer, cloudflare: cloudflareServer, deno: denoServer } satisfies Record<
  (typeof PROFILED_RUNTIMES)[number],
  StartServer
>;
