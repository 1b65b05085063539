// Runs under `deno test --unstable-kv` only (dev/support/deno-tests.ts): real Deno KV, in memory.
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

const policy = { name: "caller-writes", limit: 2, windowSeconds: 60 };

deno.test("Deno KV rate limiter: counts each key per clock-aligned window, concurrent requests included", async () => {
  const store = await deno.openKv(":memory:");
  try {
    let now = 60_000 * 100 + 30_000;
    const limiter = createDenoKvRateLimiter(store, deno.KvU64, () => now);
    const counts = await Promise.all([1, 2, 3].map(() => limiter.count(policy, "a")));
    assert.deepEqual(counts.map((count) => count.allowed).sort(), [false, true, true]);
    assert.equal(Math.min(...counts.map((count) => count.remaining)), 0);
    assert.deepEqual(await limiter.count(policy, "b"), { allowed: true, remaining: 1, resetSeconds: 30 });
    now += 30_000;
    assert.deepEqual(await limiter.count(policy, "a"), { allowed: true, remaining: 1, resetSeconds: 60 });
  } finally {
    store.close();
  }
});
