// A KV-hit link lookup in process, for measuring what one part of the app adds to it: apps that
// differ in that part only get the same lookups in blocks that take turns (a busy moment falls on
// all alike). The database is a constant answer: a KV hit never reaches it.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { type AppDeps, createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { parseSettings, type RawSettings } from "../../core/settings/settings.ts";
import { median, percentile } from "../../dev/support/stats.ts";
import { bearer, TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { listen } from "../../edge/node/server.ts";

const LINK = {
  tenant_id: "acme",
  provider: "github",
  external_account_id: "1",
  user_id: "alice",
  linked_at: new Date(),
};
const sql: Sql = { query: async () => [{ ...LINK, display_name: null }] as never, transaction: async () => [] };

/** How a lookup reaches an app: `app.request` in process, or `fetch` over HTTP (`servedApart`). */
export interface KvHitApp {
  request(path: string, init: RequestInit): Promise<Response> | Response;
}

/** In the serving process: each app behind Node's server on a loopback port; prints their URLs. */
export async function serveApps(apps: Record<string, ReturnType<typeof createApp>>): Promise<void> {
  const urls: Record<string, string> = {};
  for (const [name, app] of Object.entries(apps)) urls[name] = (await listen(app.fetch, { port: 0 })).url;
  console.log(JSON.stringify(urls));
}

/**
 * `script --serve` run in a process of its own (which calls `serveApps`), so the client's work and
 * the servers' do not share a thread; its apps reached with `fetch`.
 */
export async function servedApart<Name extends string>(script: string, names: readonly Name[]) {
  const child = spawn(process.execPath, ["--import", "tsx", script, "--serve"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
  const urls = JSON.parse(line) as Record<Name, string>;
  const apps = Object.fromEntries(
    names.map((name) => [
      name,
      { request: (path: string, init: RequestInit) => fetch(new URL(path, urls[name]), init) },
    ]),
  ) as Record<Name, KvHitApp>;
  return { apps, close: () => void child.kill() };
}

export const kvHitApp = (settings: RawSettings = {}, deps: Partial<AppDeps> = {}) =>
  createApp({
    sql,
    kv: createMemoryKv(),
    settings: parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET, ...settings }),
    runtime: "node",
    logger: silentLogger,
    ...deps,
  });

/** Each lookup's time in µs. */
async function lookups(app: KvHitApp, count: number, source = "kv"): Promise<number[]> {
  const headers = await bearer();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await app.request("/v1/links/github/1", { headers });
    await response.arrayBuffer();
    times.push((performance.now() - started) * 1000);
    // The first lookup fills the cache; every measured one must be a hit.
    if (response.status !== 200 || response.headers.get("x-link-source") !== source)
      throw new Error(`expected a KV hit, got ${response.status} ${response.headers.get("x-link-source")}`);
  }
  return times;
}

export interface KvHitCost {
  /** Median over the blocks of each block's mean, µs per request. */
  meanUs: number;
  /** The p50 of every lookup, µs. */
  p50Us: number;
}

/** Every app warmed, then `blocks` rounds of `requests` lookups each, the order turning each round. */
export async function kvHitsInTurns<Name extends string>(
  apps: Record<Name, KvHitApp>,
  { requests, blocks }: { requests: number; blocks: number },
): Promise<Record<Name, KvHitCost>> {
  const names = Object.keys(apps) as Name[];
  for (const name of names) {
    await lookups(apps[name], 1, "db");
    await lookups(apps[name], requests);
  }
  const samples = Object.fromEntries(names.map((name) => [name, { means: [] as number[], all: [] as number[] }]));
  for (let block = 0; block < blocks; block++) {
    for (const name of block % 2 ? [...names].reverse() : names) {
      const times = await lookups(apps[name], requests);
      samples[name]!.means.push(times.reduce((sum, time) => sum + time, 0) / requests);
      samples[name]!.all.push(...times);
    }
  }
  return Object.fromEntries(
    names.map((name) => [name, { meanUs: median(samples[name]!.means), p50Us: percentile(samples[name]!.all, 50) }]),
  ) as Record<Name, KvHitCost>;
}
