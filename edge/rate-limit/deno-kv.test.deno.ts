// Runs under `deno test --unstable-kv` only (dev/support/deno-tests.ts): real Deno KV, in memory.
// Several processes on one file: test/rate-limit/deno-kv-shared.test.ts.
import assert from "node:assert/strict";
import { createDenoKvRateLimiter, type DenoKvCounters, type DenoKvU64, denoKvCounters } from "./deno-kv.ts";

type Keys = AsyncIterable<{ key: readonly unknown[] }>;

const deno = (
  globalThis as unknown as {
    Deno: {
      openKv(path: string): Promise<DenoKvCounters & { close(): void; list(s: { prefix: unknown[] }): Keys }>;
      test(name: string, run: () => Promise<void>): void;
      KvU64: DenoKvU64;
    };
  }
).Deno;

const policy = { name: "caller-writes", limit: 3, windowSeconds: 60 };
// Syncs only when flushed: the test decides when instances learn of each other.
const never = () => () => {};

deno.test(
  "Deno KV rate limiter: decides locally, shares its counts when it syncs, per clock-aligned window",
  async () => {
    const store = await deno.openKv(":memory:");
    try {
      let now = 60_000 * 100 + 30_000;
      const options = { intervalMs: 1000, now: () => now, schedule: never };
      const [one, two] = [1, 2].map(() => createDenoKvRateLimiter(store, deno.KvU64, options)) as [
        ReturnType<typeof createDenoKvRateLimiter>,
        ReturnType<typeof createDenoKvRateLimiter>,
      ];
      assert.deepEqual(await one.count(policy, "a"), { allowed: true, remaining: 2, resetSeconds: 30 });
      assert.deepEqual(await one.count(policy, "a"), { allowed: true, remaining: 1, resetSeconds: 30 });
      await one.flush();
      // The second instance has not read yet: it admits from what it holds, then learns the total.
      assert.equal((await two.count(policy, "a")).allowed, true);
      await two.flush();
      assert.deepEqual(await two.count(policy, "a"), { allowed: false, remaining: 0, resetSeconds: 30 });
      assert.equal((await two.count(policy, "b")).remaining, 2);
      now += 30_000;
      assert.deepEqual(await one.count(policy, "a"), { allowed: true, remaining: 2, resetSeconds: 60 });
      await Promise.all([one.flush(), two.flush()]);
    } finally {
      store.close();
    }
  },
);

deno.test("Deno KV rate limiter: a window's counters are deleted once two windows have turned", async () => {
  const store = await deno.openKv(":memory:");
  try {
    let now = 60_000 * 100;
    const limiter = createDenoKvRateLimiter(store, deno.KvU64, { intervalMs: 1000, now: () => now, schedule: never });
    const counters = async () => {
      const keys: (readonly unknown[])[] = [];
      for await (const { key } of store.list({ prefix: ["rate-limit"] })) keys.push(key);
      return keys;
    };
    await limiter.count(policy, "a");
    await limiter.flush();
    now += 60_000;
    await limiter.count(policy, "b");
    await limiter.flush();
    // The previous window's counter stays, for an instance whose clock is late.
    assert.deepEqual(await counters(), [
      ["rate-limit", policy.name, 100, "a"],
      ["rate-limit", policy.name, 101, "b"],
    ]);
    now += 60_000;
    await limiter.count(policy, "c");
    await limiter.flush();
    assert.deepEqual(await counters(), [
      ["rate-limit", policy.name, 101, "b"],
      ["rate-limit", policy.name, 102, "c"],
    ]);
  } finally {
    store.close();
  }
});

deno.test("Deno KV rate limiter: a backlog of old counters is deleted a commit per sync", async () => {
  const store = await deno.openKv(":memory:");
  try {
    const counters = denoKvCounters(store, deno.KvU64);
    const at = (window: number, key: string) => ({ counter: { policy: policy.name, window, key }, by: 1 });
    await counters.add(Array.from({ length: 1001 }, (_, i) => at(100, `k${i}`)));
    const left = async () => {
      let count = 0;
      for await (const _ of store.list({ prefix: ["rate-limit", policy.name, 100] })) count++;
      return count;
    };
    await counters.add([at(102, "a")]);
    assert.equal(await left(), 1);
    await counters.add([at(102, "a")]);
    assert.equal(await left(), 0);
  } finally {
    store.close();
  }
});

deno.test("Deno KV rate limiter: a sync deletes as many old counters as it adds", async () => {
  const store = await deno.openKv(":memory:");
  try {
    const counters = denoKvCounters(store, deno.KvU64);
    const keys = (window: number) =>
      Array.from({ length: 2500 }, (_, i) => ({ counter: { policy: policy.name, window, key: `k${i}` }, by: 1 }));
    await counters.add(keys(100));
    await counters.add(keys(102));
    for await (const { key } of store.list({ prefix: ["rate-limit", policy.name, 100] })) assert.fail(`${key} stayed`);
  } finally {
    store.close();
  }
});
