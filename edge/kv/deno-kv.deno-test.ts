// Runs under `deno test --unstable-kv` only (dev/deno/core-tests.ts): real Deno KV, in memory.
import { describe, expect, it } from "vitest";
import { createDenoKv, type DenoKv } from "./deno-kv.ts";
import { kvCacheContract } from "../../test/ports/kv-contract.ts";

const deno = (globalThis as unknown as { Deno: { openKv(path: string): Promise<DenoKv & { close(): void }> } }).Deno;

kvCacheContract("Deno KV", async () => {
  const store = await deno.openKv(":memory:");
  return { kv: createDenoKv(store), close: async () => store.close() };
});

describe("Deno KV expiry", () => {
  it("a value is gone once its lifetime is over, even before Deno KV collects it", async () => {
    const store = await deno.openKv(":memory:");
    let now = 1_000_000;
    const kv = createDenoKv(store, () => now);
    await kv.put("ttl/a", "v", { ttlSeconds: 60 });
    now += 59_000;
    expect(await kv.get("ttl/a")).toBe("v");
    expect((await kv.list("ttl/")).keys).toEqual(["ttl/a"]);
    now += 1_000;
    expect(await kv.get("ttl/a")).toBeNull();
    expect((await kv.list("ttl/")).keys).toEqual([]);
    store.close();
  });
});
