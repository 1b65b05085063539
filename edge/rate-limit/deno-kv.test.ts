import { describe, expect, it } from "vitest";
import { createDenoKvRateLimiter, type DenoKvCounters, denoKvCounters } from "./deno-kv.ts";

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
    // Keys are [root, policy, window, key]: those of the prefix's policy before the end's window.
    async *list({ prefix, end }, { limit }) {
      const listed = [...sums.keys()]
        .map((id) => JSON.parse(id) as [string, string, number, string])
        .filter(([root, policy, window]) => root === prefix[0] && policy === prefix[1] && window < Number(end[2]))
        .sort(([, , a, x], [, , b, y]) => a - b || x.localeCompare(y));
      for (const key of listed.slice(0, limit)) yield { key };
    },
    atomic() {
      const mutations: { type: string; key: readonly unknown[]; value?: unknown }[] = [];
      const atomic = {
        mutate: (mutation: (typeof mutations)[number]) => (mutations.push(mutation), atomic),
        async commit() {
          if (state.commits++ === state.failingCommit) throw new Error("commit failed");
          for (const { type, key, value } of mutations) {
            const id = JSON.stringify(key);
            if (type === "delete") sums.delete(id);
            else sums.set(id, (sums.get(id) ?? 0n) + (value as KvU64).value);
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

describe("Deno KV counters' old windows", () => {
  it("are deleted as fast as they are made: a sync deletes at least as many as it adds", async () => {
    const { kv, sums } = fakeDenoKv();
    const counters = denoKvCounters(kv, KvU64);
    // One more distinct key each window than a commit takes, one sync a window: were the
    // deletions capped at a commit, one counter a window would stay behind, for ever.
    const keysPerWindow = 1001;
    for (let window = 100; window < 110; window++) {
      await counters.add(
        Array.from({ length: keysPerWindow }, (_, i) => ({ counter: { policy: "p", window, key: `k${i}` }, by: 1 })),
      );
      const windows = new Set([...sums.keys()].map((id) => (JSON.parse(id) as unknown[])[2]));
      // This window's and the one before it, kept for an instance whose clock is late.
      expect([...windows].sort()).toEqual(window === 100 ? [100] : [window - 1, window]);
    }
    expect(sums.size).toBe(2 * keysPerWindow);
  });
});
