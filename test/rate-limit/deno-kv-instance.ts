// One instance of the service's Deno KV rate limiter in a Deno process of its own, for
// deno-kv-shared.test.ts: `deno run --unstable-kv … deno-kv-instance.ts SETTINGS_JSON`. Once ready
// it prints "ready" and reads from stdin when to start (ms since the epoch), so the instances start
// together however long each took to load. From then on it counts one request of one caller every
// `paceMs`, then flushes and prints one JSON line: when each admitted request was counted (ms since
// the start), the longest sync it made, and how late its sync timer fired at most (a process
// waiting for a core syncs that much later than its interval).
import type { RateLimitPolicy } from "../../core/ports/rate-limit.ts";
import { type DenoKvOpener, openKvAt } from "../../edge/deno/kv-path.ts";
import { createBatchedRateLimiter, type Schedule, type SharedCounters } from "../../edge/rate-limit/batched.ts";
import { type DenoKvCounters, type DenoKvU64, denoKvCounters } from "../../edge/rate-limit/deno-kv.ts";

export interface InstanceSettings {
  kvPath: string;
  requests: number;
  paceMs: number;
  intervalMs: number;
  policy: RateLimitPolicy;
}

export interface InstanceReport {
  admittedAt: number[];
  longestSyncMs: number;
  latestTimerMs: number;
}

const deno = (
  globalThis as unknown as {
    Deno: DenoKvOpener & {
      args: string[];
      stdin: { readable: ReadableStream<Uint8Array> };
      KvU64: DenoKvU64;
    };
  }
).Deno;

const settings = JSON.parse(deno.args[0]!) as InstanceSettings;
// As the service opens it: three processes opening one new file at once find it locked at times.
const kv = (await openKvAt(deno, settings.kvPath)) as unknown as DenoKvCounters & { close(): void };
const counters = denoKvCounters(kv, deno.KvU64);
let longestSyncMs = 0;
let addedAt = 0;
// The same counters, each sync (an add, then its read) timed.
const timed: SharedCounters = {
  add: (additions) => ((addedAt = performance.now()), counters.add(additions)),
  read: async (list) => {
    const totals = await counters.read(list);
    longestSyncMs = Math.max(longestSyncMs, performance.now() - addedAt);
    return totals;
  },
};
// The limiter's own timer, its lateness noted.
let latestTimerMs = 0;
const schedule: Schedule = (work, ms) => {
  const due = performance.now() + ms;
  const id = setTimeout(() => {
    latestTimerMs = Math.max(latestTimerMs, performance.now() - due);
    work();
  }, ms);
  return () => clearTimeout(id);
};
// The window stays the one of the start for the whole run: a turn would start the count anew.
const windowMs = settings.policy.windowSeconds * 1000;
const windowStart = Math.floor(Date.now() / windowMs) * windowMs + 1;
let startAt = Number.POSITIVE_INFINITY;
const limiter = createBatchedRateLimiter(timed, {
  intervalMs: settings.intervalMs,
  schedule,
  now: () => windowStart + Math.max(0, Date.now() - startAt),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

console.log("ready");
startAt = Number(await firstLine(deno.stdin.readable));
await sleep(startAt - Date.now());
const admittedAt: number[] = [];
for (let i = 0; i < settings.requests; i++) {
  if ((await limiter.count(settings.policy, "tenant/caller")).allowed) admittedAt.push(Date.now() - startAt);
  await sleep(settings.paceMs);
}
await limiter.flush();
kv.close();
console.log(JSON.stringify({ admittedAt, longestSyncMs, latestTimerMs } satisfies InstanceReport));

async function firstLine(input: ReadableStream<Uint8Array>): Promise<string> {
  const reader = input.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text.split("\n")[0]!;
}
