// One instance of the service's Deno KV rate limiter in a Deno process of its own, for
// deno-kv-shared.test.ts: `deno run --unstable-kv … deno-kv-instance.ts SETTINGS_JSON`. From
// `startAt` it counts one request of one caller every `paceMs`, then flushes and prints one JSON
// line: when each admitted request was counted (ms since startAt) and the longest sync it made.
import type { RateLimitPolicy } from "../../core/ports/rate-limit.ts";
import { createBatchedRateLimiter, type SharedCounters } from "../../edge/rate-limit/batched.ts";
import { type DenoKvCounters, type DenoKvU64, denoKvCounters } from "../../edge/rate-limit/deno-kv.ts";

export interface InstanceSettings {
  kvPath: string;
  startAt: number;
  requests: number;
  paceMs: number;
  intervalMs: number;
  policy: RateLimitPolicy;
}

export interface InstanceReport {
  admittedAt: number[];
  longestSyncMs: number;
}

const deno = (
  globalThis as unknown as {
    Deno: { args: string[]; KvU64: DenoKvU64; openKv(path: string): Promise<DenoKvCounters & { close(): void }> };
  }
).Deno;

const settings = JSON.parse(deno.args[0]!) as InstanceSettings;
const kv = await deno.openKv(settings.kvPath);
const counters = denoKvCounters(kv, deno.KvU64);
let longestSyncMs = 0;
let addedAt = 0;
// The same counters, each sync (an add, then its read) timed.
const timed: SharedCounters = {
  add: (additions, expireInMs) => ((addedAt = performance.now()), counters.add(additions, expireInMs)),
  read: async (list) => {
    const totals = await counters.read(list);
    longestSyncMs = Math.max(longestSyncMs, performance.now() - addedAt);
    return totals;
  },
};
// The window stays the one of startAt for the whole run: a turn would start the count anew.
const windowMs = settings.policy.windowSeconds * 1000;
const windowStart = Math.floor(Date.now() / windowMs) * windowMs + 1;
const limiter = createBatchedRateLimiter(timed, {
  intervalMs: settings.intervalMs,
  now: () => windowStart + Math.max(0, Date.now() - settings.startAt),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

await sleep(settings.startAt - Date.now());
const admittedAt: number[] = [];
for (let i = 0; i < settings.requests; i++) {
  if ((await limiter.count(settings.policy, "tenant/caller")).allowed) admittedAt.push(Date.now() - settings.startAt);
  await sleep(settings.paceMs);
}
await limiter.flush();
kv.close();
console.log(JSON.stringify({ admittedAt, longestSyncMs } satisfies InstanceReport));
