// `npm run measure:kv-hit-profile`: where a KV hit's server time goes beyond a bare KV get's, on
// Node and Deno. Each server (the runtime's bare KV get, bench/measure/kv-baseline/, and the
// service as `npm start` runs it, its KV holding the link) runs in a process of its own under the
// inspector, node's built as its release is (its frames read back to their files through the
// source map); a CPU profile is taken while this process sends it the bench's KV-hit lookups over
// kept-alive connections; each profile is read as CPU µs per request in each part (cpu-profile.ts).
// workerd offers no inspector Miniflare exposes here: its split is the bench's Server-Timing.
// Nor does Viceroy: Fastly's part is a table of its own, told by builds and answers (viceroy.ts).
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { serveFromFolder } from "../../../dev/launchers/child-server.ts";
import { spawnDenoServer, startDenoRuntime } from "../../../dev/launchers/deno.ts";
import type { KvEntries } from "../../../dev/launchers/planted-kv.ts";
import { freePort } from "../../../dev/support/free-port.ts";
import { bearer, TEST_AUTH_SECRET } from "../../../dev/support/tokens.ts";
import { kvPathFlags } from "../../../edge/deno/kv-path.ts";
import { createMemoryKv } from "../../../edge/kv/memory.ts";
import { runBenchCommand } from "../../lib/cli.ts";
import { BASELINE_PATH } from "../kv-baseline/handler.ts";
import { kvHitApp } from "../kv-hit.ts";
import { type CpuProfile, cpuPerRequest, type PartName, type SourceOf, topFunctions } from "./cpu-profile.ts";
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
async function nodeServer(kind: "baseline" | "app", entries: KvEntries): Promise<Server> {
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
      env: { ...process.env, ...APP_ENV, PROFILE_KV_ENTRIES: JSON.stringify(entries) },
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

async function denoServer(kind: "baseline" | "app", entries: KvEntries): Promise<Server> {
  const inspector = await freePort();
  const inspect = `--inspect=127.0.0.1:${inspector}`;
  if (kind === "app") {
    const server = await startDenoRuntime(APP_ENV, { log: "file", kvEntries: entries, runFlags: [inspect] });
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

/** One Chrome DevTools Protocol session with the server's inspector. */
async function inspect(port: number) {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const socket = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let next = 0;
  const pending = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  };
  const call = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve) => {
      const id = ++next;
      pending.set(id, resolve as (result: unknown) => void);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
}

/** `count` GETs of `path`, `concurrency` at a time over kept-alive connections; each must answer 200. */
async function load(url: string, path: string, headers: Record<string, string>, count: number, concurrency: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const { hostname, port } = new URL(url);
  let sent = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      request({ hostname, port, path, headers, agent }, (answer) => {
        answer.resume();
        answer.on("end", () =>
          answer.statusCode === 200 ? resolve() : reject(new Error(`${path}: HTTP ${answer.statusCode}`)),
        );
      })
        .on("error", reject)
        .end();
    });
  const lane = async () => {
    while (sent++ < count) await one();
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  agent.destroy();
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

async function main() {
  const opts = profileOptions();
  if (opts.save) await mkdir(opts.save, { recursive: true });
  const entries = await linkEntries();
  const value = Object.values(entries).find((v) => v.includes("alice"))!;
  const { authorization } = await bearer();
  const profiled = PROFILED_RUNTIMES.filter((runtime) => opts.runtimes.includes(runtime));
  if (profiled.length > 0) {
    console.log(
      `CPU µs per request, ${opts.requests} requests (${opts.concurrency} in flight) after ${opts.warmup} unmeasured, sampled every ${SAMPLING_US} µs\n`,
    );
    console.log("| runtime | part | bare KV get | KV hit | KV hit − bare get |");
    console.log("| --- | --- | ---: | ---: | ---: |");
  }
  for (const runtime of profiled) {
    const bare = await starters[runtime]("baseline", entries);
    let bareCost: ReturnType<typeof cpuPerRequest>;
    try {
      await new Promise<void>((resolve, reject) =>
        request(`${bare.url}${BASELINE_PATH}`, { method: "PUT" }, (answer) => answer.resume().on("end", resolve))
          .on("error", reject)
          .end(value),
      );
      bareCost = await profileOne(`${runtime}-bare-kv-get`, bare, BASELINE_PATH, {}, opts);
    } finally {
      await bare.close();
    }
    const app = await starters[runtime]("app", entries);
    let hitCost: ReturnType<typeof cpuPerRequest>;
    try {
      hitCost = await profileOne(`${runtime}-kv-hit`, app, LOOKUP, { authorization }, opts);
    } finally {
      await app.close();
    }
    const parts = [...new Set<PartName>([...hitCost.parts.keys(), ...bareCost.parts.keys()])];
    parts.sort((a, b) => (hitCost.parts.get(b) ?? 0) - (hitCost.parts.get(a) ?? 0));
    const row = (part: string, b: number, h: number) =>
      console.log(`| ${runtime} | ${part} | ${b.toFixed(1)} | ${h.toFixed(1)} | ${(h - b).toFixed(1)} |`);
    for (const part of parts) row(part, bareCost.parts.get(part) ?? 0, hitCost.parts.get(part) ?? 0);
    row("**all**", bareCost.total, hitCost.total);
  }
  if (!opts.runtimes.includes("fastly")) return;
  const run = { lookup: LOOKUP, entries, value, authorization, appEnv: APP_ENV, requests: opts.viceroyRequests };
  console.log(`\n${await measureOnViceroy(run)}`);
}

await runBenchCommand(USAGE, main);
