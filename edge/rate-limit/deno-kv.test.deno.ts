// Runs under `deno test --unstable-kv` only (dev/support/deno-tests.ts): real Deno KV, in memory.
// Several processes on one file: test/rate-limit/deno-kv-shared.test.ts.
import assert from "node:assert/strict";
import { createDenoKvRateLimiter, type DenoKvCounters, type DenoKvU64 } from "./deno-kv.ts";

const deno = (
  globalThis as unknown as {
    Deno: {
      openKv(path: string): Promise<DenoKvCounters & { close(): void }>;
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
