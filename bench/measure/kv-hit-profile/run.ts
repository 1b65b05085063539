// `npm run measure:kv-hit-profile`: where a KV hit's server time goes beyond a bare KV get's, on
// Node, workerd and Deno. Each server (the runtime's bare KV get, bench/measure/kv-baseline/, and
// the service as `npm start` runs it, its KV holding the link) runs under the inspector in a
// process of its own (workerd through Miniflare's `inspectorPort`); node's and the Worker are built
// as they ship, their frames read back to their files through the source map; a CPU profile is
// taken while this process sends it the bench's KV-hit lookups over kept-alive connections; each
// profile is read as CPU µs per request in each part (cpu-profile.ts).
// With --otel, a third profile: the KV hit with tracing on, exporting to the collector.
// Viceroy has no inspector: Fastly's part is a table of its own, told by builds and answers (viceroy.ts).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { KvEntries } from "../../../dev/launchers/planted-kv.ts";
import {
  COLLECTOR_MISSING,
  type Collector,
  collectorInstalled,
  startCollector,
} from "../../../dev/support/collector.ts";
import { bearer } from "../../../dev/support/tokens.ts";
import { createMemoryKv } from "../../../edge/kv/memory.ts";
import { muteStdout, runBenchCommand, UsageError } from "../../lib/cli.ts";
import { BASELINE_PATH } from "../kv-baseline/handler.ts";
import { storeBaselineValue } from "../kv-baseline/launch.ts";
import { kvHitApp } from "../kv-hit.ts";
import {
  type CpuProfile,
  cpuPerRequest,
  type PartsCost,
  partsTableHead,
  partsTableRows,
  topFunctions,
} from "./cpu-profile.ts";
import { inspect, load } from "./drive.ts";
import { PROFILED_RUNTIMES, type ProfileOptions, profileOptions, USAGE } from "./options.ts";
import { APP_ENV, profiledServers, type Server } from "./servers.ts";
import { measureOnViceroy } from "./viceroy.ts";

const LOOKUP = "/v1/links/github/1";
const SAMPLING_US = 100;

/** The link's cache entry, as the app writes it on a miss: planted in each runtime's KV. */
async function linkEntries(): Promise<KvEntries> {
  const kv = createMemoryKv();
  const app = kvHitApp({}, { kv });
  await (await app.request(LOOKUP, { headers: await bearer() })).arrayBuffer();
  const { keys } = await kv.list("");
  return Object.fromEntries(await Promise.all(keys.map(async (key) => [key, (await kv.get(key))!] as const)));
}

async function profileOne(
  name: string,
  server: Server,
  path: string,
  headers: Record<string, string>,
  opts: ProfileOptions,
) {
  await load(server.url, path, headers, opts.warmup, opts.concurrency);
  const session = await inspect(server.inspector, server.target);
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
  const start = profiledServers[runtime];
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
      // Workers' request lines come through Miniflare's console; node's and deno's go to files.
      const unmute = muteStdout();
      const costs = await profileRuntime(runtime, { entries, value, authorization, traced }, opts).finally(unmute);
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
