import { describe, expect, it } from "vitest";
import { createDenoKvRateLimiter, type DenoKvCounters } from "./deno-kv.ts";

class KvU64 {
  constructor(readonly value: bigint) {}
}

/** Deno KV's sums in a map; the commit numbered `failingCommit` (from 0) fails. */
function fakeDenoKv() {
  const sums = new Map<string, bigint>();
  const state = { failingCommit: -1, commits: 0 };
  const kv: DenoKvCounters = {
    async getMany(keys) {
      return keys.map((key) => ({ value: new KvU64(sums.get(JSON.stringify(key)) ?? 0n) }));
    },
    async *list() {},
    atomic() {
      const mutations: { key: readonly unknown[]; value?: unknown }[] = [];
      const atomic = {
        mutate: (mutation: (typeof mutations)[number]) => (mutations.push(mutation), atomic),
        async commit() {
          if (state.commits++ === state.failingCommit) throw new Error("commit failed");
          for (const { key, value } of mutations) {
            const id = JSON.stringify(key);
            sums.set(id, (sums.get(id) ?? 0n) + (value as KvU64).value);
          }
          return { ok: true };
        },
      };
      return atomic;
    },
  };
  return { kv, sums, state };
}

describe("Deno KV rate limiter over several commits", () => {
  it("adds once what a commit added before a later one failed", async () => {
    const { kv, sums, state } = fakeDenoKv();
    const limiter = createDenoKvRateLimiter(kv, KvU64, { intervalMs: 1000, now: () => 0, schedule: () => () => {} });
    const policy = { name: "p", limit: 5, windowSeconds: 60 };
    // One more key than a commit takes: two commits, the second of which fails once.
    const keys = Array.from({ length: 1001 }, (_, i) => `k${i}`);
    for (const key of keys) await limiter.count(policy, key);
    state.failingCommit = 1;
    await limiter.flush();
    await limiter.flush();
    expect(new Set(sums.values())).toEqual(new Set([1n]));
    expect(sums.size).toBe(keys.length);
  });
});
