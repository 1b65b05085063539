import { describe, expect, it } from "vitest";
import { describeContract } from "../../test/ports/describe-contract.ts";
import { kvContract } from "../../test/ports/kv-contract.ts";
import { createMemoryKv } from "./memory.ts";

describeContract("KV cache contract: memory", kvContract, async () => ({
  port: createMemoryKv(),
  close: async () => {},
}));

describe("memory KV", () => {
  it("stores, reads and deletes", async () => {
    const kv = createMemoryKv();
    await kv.put("a", "1", { ttlSeconds: 60 });
    expect(await kv.get("a")).toBe("1");
    await kv.delete("a");
    expect(await kv.get("a")).toBeNull();
  });

  it("honours the TTL", async () => {
    let now = 1_000_000;
    const kv = createMemoryKv(() => now);
    await kv.put("a", "1", { ttlSeconds: 60 });
    now += 59_999;
    expect(await kv.get("a")).toBe("1");
    now += 1;
    expect(await kv.get("a")).toBeNull();
    expect(kv.size()).toBe(0);
  });

  it("lists by prefix in pages", async () => {
    const kv = createMemoryKv();
    for (const key of ["p/3", "p/1", "q/1", "p/2"]) await kv.put(key, key, { ttlSeconds: 60 });
    const first = await kv.list("p/", { limit: 2 });
    expect(first.keys).toEqual(["p/1", "p/2"]);
    const second = await kv.list("p/", { limit: 2, cursor: first.cursor });
    expect(second).toEqual({ keys: ["p/3"] });
  });
});
