// The Fastly part of `npm run measure:kv-hit-profile`: Viceroy has no inspector, so its split is
// told by what differs between builds and answers, one request at a time. js-compute runs a full
// GC before each request a reused instance takes (docs/fastly.md): the bare get built alone and
// built holding the service's modules tell what that GC costs for those modules; the KV hit's
// Server-Timing `total` tells what the app itself spends; its p90, the fresh instance Viceroy
// starts every sixth request, which builds the app.
import type { RawSettings } from "../../../core/settings/settings.ts";
import { startFastlyRuntime } from "../../../dev/launchers/fastly.ts";
import type { KvEntries } from "../../../dev/launchers/planted-kv.ts";
import { freePort } from "../../../dev/support/free-port.ts";
import { parseServerTiming } from "../../../dev/support/server-timing.ts";
import { percentile } from "../../../dev/support/stats.ts";
import { BASELINE_PATH } from "../kv-baseline/handler.ts";
import { launchFastlyBaseline, storeBaselineValue } from "../kv-baseline/launch.ts";

/** One measured server and what each of its answers took. */
export interface Sampled {
  name: string;
  clientMs: number[];
  /** The app's own `total`, where the answer carries Server-Timing. */
  totalMs: number[];
}

/** Sends `count` requests one after another; each answer's time and Server-Timing `total`. */
export async function sampleOneAtATime(
  name: string,
  url: string,
  headers: Record<string, string>,
  count: number,
): Promise<Sampled> {
  const sampled: Sampled = { name, clientMs: [], totalMs: [] };
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const answer = await fetch(url, { headers });
    await answer.arrayBuffer();
    if (!answer.ok) throw new Error(`${name}: HTTP ${answer.status}`);
    sampled.clientMs.push(performance.now() - started);
    const total = parseServerTiming(answer.headers.get("server-timing") ?? "").get("total");
    if (typeof total === "number") sampled.totalMs.push(total);
  }
  return sampled;
}

const ms = (value: number) => (Number.isNaN(value) ? "" : value.toFixed(2));

/** The Markdown table of what each server's answers took. */
export function viceroyTable(servers: readonly Sampled[]): string {
  const rows = servers.map(({ name, clientMs, totalMs }) =>
    [name, ms(percentile(clientMs, 50)), ms(percentile(clientMs, 90)), ms(percentile(totalMs, 50))].join(" | "),
  );
  return [
    "| fastly-viceroy, one at a time | p50 ms | p90 ms | app `total` p50 ms |",
    "| --- | ---: | ---: | ---: |",
    ...rows.map((row) => `| ${row} |`),
  ].join("\n");
}

export interface ViceroyRun {
  /** The KV hit's path, and the link's cache entry planted in the service's KV Store. */
  lookup: string;
  entries: KvEntries;
  /** The value the bare get reads, of the same size. */
  value: string;
  authorization: string;
  /** The service's settings, as the profile runs it on every runtime. */
  appEnv: RawSettings;
  requests: number;
}

// Unmeasured: the first instances' start and the app's first build.
const WARMUP = 12;

/** The bare get alone, the bare get holding the service's modules, and the service's KV hit. */
export async function measureOnViceroy(run: ViceroyRun): Promise<string> {
  const sampled: Sampled[] = [];
  const measure = async (
    name: string,
    server: { url: string; close(): Promise<void> },
    path: string,
    headers = {},
    ready?: () => Promise<void>,
  ) => {
    try {
      await ready?.();
      await sampleOneAtATime(name, `${server.url}${path}`, headers, WARMUP);
      sampled.push(await sampleOneAtATime(name, `${server.url}${path}`, headers, run.requests));
    } finally {
      await server.close();
    }
  };
  for (const build of ["bare", "holding-app"] as const) {
    const server = await launchFastlyBaseline(build);
    const name = build === "bare" ? "bare KV get" : "bare KV get, the app's modules held";
    await measure(name, server, BASELINE_PATH, {}, () => storeBaselineValue(server.url, run.value));
  }
  const service = await startFastlyRuntime(run.appEnv, { port: await freePort(), kvEntries: run.entries, log: "file" });
  await measure("KV hit", service, run.lookup, { authorization: run.authorization });
  return viceroyTable(sampled);
}
