// `npm run measure:kv-hit-profile`: where a KV hit's server time goes beyond a bare KV get's, on
// Node and Deno. Each server (the runtime's bare KV get, bench/measure/kv-baseline/, and the
// service as `npm start` runs it, its KV holding the link) runs in a process of its own under the
// inspector, node's built as its release is (its frames read back to their files through the
// source map); a CPU profile is taken while this process sends it the bench's KV-hit lookups over
// kept-alive connections; each profile is read as CPU µs per request in each part (cpu-profile.ts).
// With --otel, a third profile: the KV hit with tracing on, exporting to the collector.
// workerd offers no inspector Miniflare exposes here: its split is the bench's Server-Timing.
// Nor does Viceroy: Fastly's part is a table of its own, told by builds and answers (viceroy.ts).
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { serveFromFolder } from "../../../dev/launchers/child-server.ts";
import { spawnDenoServer, startDenoRuntime } from "../../../dev/launchers/deno.ts";
import type { KvEntries } from "../../../dev/launchers/planted-kv.ts";
import {
  COLLECTOR_MISSING,
  type Collector,
  collectorInstalled,
  startCollector,
} from "../../../dev/support/collector.ts";
import { freePort } from "../../../dev/support/free-port.ts";
import { bearer, TEST_AUTH_SECRET } from "../../../dev/support/tokens.ts";
import { kvPathFlags } from "../../../edge/deno/kv-path.ts";
import { createMemoryKv } from "../../../edge/kv/memory.ts";
import { runBenchCommand, UsageError } from "../../lib/cli.ts";
import { BASELINE_PATH } from "../kv-baseline/handler.ts";
import { storeBaselineValue } from "../kv-baseline/launch.ts";
import { kvHitApp } from "../kv-hit.ts";
import {
  type CpuProfile,
  cpuPerRequest,
  type PartsCost,
  partsTableHead,
  partsTableRows,
  type SourceOf,
  topFunctions,
} from "./cpu-profile.ts";
import { inspect, load } from "./drive.ts";
import { PROFILED_RUNTIMES, type ProfileOptions, profileOptions, USAGE } from "./options.ts";
import { bundleSources } from "./source-map.ts";
import { measureOnViceroy } from "./viceroy.ts";

const LOOKUP = "/v1/links/github/1";
/** Where node's servers are built, inside the project so that their packages resolve. */
const PROFILE_BUILDS = fileURLToPath(new URL("../../../.cache/kv-hit-profile/", import.meta.url));
const SAMPLING_US = 100;
const APP_ENV = {
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

interface Server {
  url: string;
  inspector: number;
  /** Where a frame's function was written, when the server runs a bundle. */
  sourceOf?: SourceOf;
  close(): Promise<void>;
}

/** The link's cache entry, as the app writes it on a miss: planted in each runtime's KV. */
async function linkEntries(): Promise<KvEntries> {
  const kv = createMemoryKv();
  const app = kvHitApp({}, { kv });
  await (await app.request(LOOKUP, { headers: await bearer() })).arrayBuffer();
  const { keys } = await kv.list("");
  return Object.fromEntries(await Promise.all(keys.map(async (key) => [key, (await kv.get(key))!] as const)));
}

/**
 * serve-node.ts as one module with its source map, as the release is built (no keep-names, which
 * tsx adds to every function), in a folder of .cache with the server's log, removed when it
 * stops: there its packages resolve from the project's node_modules, as the release's do.
 */
async function nodeServer(
  kind: "baseline" | "app",
  entries: KvEntries,
  appEnv: Record<string, string> = APP_ENV,
): Promise<Server> {
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
}

async function denoServer(
  kind: "baseline" | "app",
  entries: KvEntries,
  appEnv: Record<string, string> = APP_ENV,
): Promise<Server> {
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
}

async function profileOne(
  name: string,
  server: Server,
  path: string,
  headers: Record<string, string>,
  opts: ProfileOptions,
) {
  await load(server.url, path, headers, opts.warmup, opts.concurrency);
  const session = await inspect(server.inspector);
  let profile: CpuProfile;
  try {
    await session.call("Profiler.enable");
    await session.call("Profiler.setSamplingInterval", { interval: SAMPLING_US });
    await session.call("Profiler.start");
    await load(server.url, path, headers, opts.requests, opts.concurrency);
    ({ profile } = await session.call<{ profile: CpuProfile }>("Profiler.stop"));
  } finally {
    // Even when a request failed: Deno does not exit while a debugger is attached.
    session.close();
  }
  if (opts.save) await writeFile(join(opts.save, `${name}.cpuprofile`), JSON.stringify(profile));
  if (opts.top > 0) console.error(topFunctions(profile, opts.requests, opts.top, server.sourceOf).join("\n"));
  return cpuPerRequest(profile, opts.requests, server.sourceOf);
}

const starters = { node: nodeServer, deno: denoServer } satisfies Record<(typeof PROFILED_RUNTIMES)[number], unknown>;

/** Starts one server, readies it, profiles `path` on it, and stops it. */
async function profiled(
  name: string,
  started: Promise<Server>,
  lookup: { path: string; headers: Record<string, string>; ready?: (server: Server) => Promise<void> },
  opts: ProfileOptions,
) {
  const server = await started;
  try {
    await lookup.ready?.(server);
    return await profileOne(name, server, lookup.path, lookup.headers, opts);
  } finally {
    await server.close();
  }
}

/** The bare get (its value PUT first), the KV hit, and with --otel the KV hit traced. */
async function profileRuntime(
  runtime: (typeof PROFILED_RUNTIMES)[number],
  run: { entries: KvEntries; value: string; authorization: string; traced?: Record<string, string> },
  opts: ProfileOptions,
): Promise<PartsCost[]> {
  const start = starters[runtime];
  const bareGet = {
    path: BASELINE_PATH,
    headers: {},
    ready: (server: Server) => storeBaselineValue(server.url, run.value),
  };
  const kvHit = { path: LOOKUP, headers: { authorization: run.authorization } };
  const costs = [
    await profiled(`${runtime}-bare-kv-get`, start("baseline", run.entries), bareGet, opts),
    await profiled(`${runtime}-kv-hit`, start("app", run.entries), kvHit, opts),
  ];
  if (run.traced) {
    costs.push(await profiled(`${runtime}-kv-hit-traced`, start("app", run.entries, run.traced), kvHit, opts));
  }
  return costs;
}

async function main() {
  const opts = profileOptions();
  if (opts.otel && !collectorInstalled()) throw new UsageError(`--otel: ${COLLECTOR_MISSING}`);
  if (opts.save) await mkdir(opts.save, { recursive: true });
  const entries = await linkEntries();
  const value = Object.values(entries).find((v) => v.includes("alice"))!;
  const { authorization } = await bearer();
  const runtimes = PROFILED_RUNTIMES.filter((runtime) => opts.runtimes.includes(runtime));
  let collector: Collector | undefined;
  try {
    if (runtimes.length > 0) {
      if (opts.otel) collector = await startCollector();
      console.log(
        `CPU µs per request, ${opts.requests} requests (${opts.concurrency} in flight) after ${opts.warmup} unmeasured, sampled every ${SAMPLING_US} µs\n`,
      );
      console.log(partsTableHead(opts.otel).join("\n"));
    }
    const traced = collector && {
      ...APP_ENV,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_SERVICE_NAME: "kv-hit-profile",
    };
    for (const runtime of runtimes) {
      const costs = await profileRuntime(runtime, { entries, value, authorization, traced }, opts);
      console.log(partsTableRows(runtime, costs).join("\n"));
    }
  } finally {
    await collector?.stop();
  }
  if (!opts.runtimes.includes("fastly")) return;
  const run = { lookup: LOOKUP, entries, value, authorization, appEnv: APP_ENV, requests: opts.viceroyRequests };
  console.log(`\n${await measureOnViceroy(run)}`);
}

await runBenchCommand(USAGE, main);
