// Runs under `deno test --unstable-kv` only (dev/support/deno-tests.ts): real Deno KV, in memory.
import assert from "node:assert/strict";
import { kvContract } from "../../test/ports/kv-contract.ts";
import { createDenoKv, type DenoKv } from "./deno-kv.ts";

interface DenoTestContext {
  step(name: string, run: () => Promise<void>): Promise<boolean>;
}

const deno = (
  globalThis as unknown as {
    Deno: {
      openKv(path: string): Promise<DenoKv & { close(): void }>;
      test(name: string, run: (t: DenoTestContext) => Promise<void>): void;
    };
  }
).Deno;

deno.test("KV cache contract: Deno KV", async (t) => {
  const store = await deno.openKv(":memory:");
  try {
    for (const [name, run] of kvContract) await t.step(name, () => run(createDenoKv(store)));
  } finally {
    store.close();
  }
});

deno.test("Deno KV expiry: a value is gone once its lifetime is over, even before Deno KV collects it", async () => {
  const store = await deno.openKv(":memory:");
  try {
    let now = 1_000_000;
    const kv = createDenoKv(store, () => now);
    await kv.put("ttl/a", "v", { ttlSeconds: 60 });
    now += 59_000;
    assert.equal(await kv.get("ttl/a"), "v");
    assert.deepEqual((await kv.list("ttl/")).keys, ["ttl/a"]);
    now += 1_000;
    assert.equal(await kv.get("ttl/a"), null);
    assert.deepEqual((await kv.list("ttl/")).keys, []);
  } finally {
    store.close();
  }
});
