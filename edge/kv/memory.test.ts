import { describe, expect, it } from "vitest";
import { describeContract } from "../../test/ports/describe-contract.ts";
import { kvContract } from "../../test/ports/kv-contract.ts";
import { createMemoryKv, SWEEP_STEPS_PER_WRITE } from "./memory.ts";

describeContract("KV cache contract: memory", kvContract, async () => ({
  port: createMemoryKv(),
  close: async () => {},
}));

describe("memory KV", () => {
  it("reads what was written, at once: no read lag", () => {
    expect(createMemoryKv().readLagMs).toBeUndefined();
  });

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

  it("sweeps expired entries as it is written to, without reading them", async () => {
    let now = 1_000_000;
    const kv = createMemoryKv(() => now);
    for (let i = 0; i < 1000; i++) await kv.put(`old/${i}`, "x", { ttlSeconds: 60 });
    now += 60_000;
    for (let i = 0; i < 1000; i++) await kv.put(`new/${i}`, "x", { ttlSeconds: 3600 });
    expect(kv.heldEntries()).toBe(1000);
    expect(kv.size()).toBe(1000);
  });

  it("holds under twice its live entries however long keys keep coming and going", async () => {
    let now = 0;
    const kv = createMemoryKv(() => now);
    let most = 0;
    for (let i = 0; i < 50_000; i++) {
      // A new key every 10 ms, each living 60 s: 6,000 live at any time.
      now += 10;
      await kv.put(`k/${i}`, "x", { ttlSeconds: 60 });
      most = Math.max(most, kv.heldEntries());
    }
    expect(most).toBeLessThanOrEqual(2 * 6_000 + SWEEP_STEPS_PER_WRITE);
    expect(most).toBeGreaterThanOrEqual(6_000);
  });

  it("keeps every live entry while sweeping", async () => {
    let now = 0;
    const kv = createMemoryKv(() => now);
    for (let i = 0; i < 100; i++) await kv.put(`long/${i}`, String(i), { ttlSeconds: 3600 });
    for (let i = 0; i < 1000; i++) {
      now += 100;
      await kv.put(`short/${i}`, "x", { ttlSeconds: 60 });
    }
    for (let i = 0; i < 100; i++) expect(await kv.get(`long/${i}`)).toBe(String(i));
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
