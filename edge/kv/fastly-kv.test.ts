import { describe, expect, it } from "vitest";
import { describeContract } from "../../test/ports/describe-contract.ts";
import { kvContract } from "../../test/ports/kv-contract.ts";
import { fakeFastlyKvStore, KV_DELETE_NOT_FOUND } from "../../test/support/fake-fastly-kv-store.ts";
import { createFastlyKv, FASTLY_KV_READ_LAG_MS } from "./fastly-kv.ts";

describeContract("KV cache contract: Fastly KV Store (a fake of js-compute's KVStore)", kvContract, async () => ({
  port: createFastlyKv(fakeFastlyKvStore().store),
  close: async () => {},
}));

describe("KvCache over a Fastly KV Store", () => {
  it("says its reads may lag a change made at another POP, so the link sync does not trust them for recent changes", () => {
    expect(createFastlyKv(fakeFastlyKvStore().store).readLagMs).toBe(FASTLY_KV_READ_LAG_MS);
    expect(FASTLY_KV_READ_LAG_MS).toBeGreaterThanOrEqual(300); // Fastly: up to 300 ms
  });

  it("stores, reads and deletes, with the TTL passed on", async () => {
    const { store, puts } = fakeFastlyKvStore();
    const kv = createFastlyKv(store);
    await kv.put("links/v1/abc", "value", { ttlSeconds: 300 });
    expect(await kv.get("links/v1/abc")).toBe("value");
    expect(puts).toEqual([{ key: "links/v1/abc", ttl: 300 }]);
    await kv.delete("links/v1/abc");
    expect(await kv.get("links/v1/abc")).toBeNull();
  });

  it("expires entries after their TTL", async () => {
    let now = 1_000_000;
    const kv = createFastlyKv(fakeFastlyKvStore(() => now).store);
    await kv.put("k", "v", { ttlSeconds: 60 });
    now += 59_999;
    expect(await kv.get("k")).toBe("v");
    now += 1;
    expect(await kv.get("k")).toBeNull();
  });

  it("takes keys Fastly would refuse, and lists them back as given", async () => {
    const kv = createFastlyKv(fakeFastlyKvStore().store);
    const keys = ["odd/..", "odd/#1", "odd/a?b", "odd/.well-known"];
    for (const key of keys) await kv.put(key, key, { ttlSeconds: 60 });
    for (const key of keys) expect(await kv.get(key)).toBe(key);
    expect((await kv.list("odd/")).keys.sort()).toEqual([...keys].sort());
  });

  it("lists by prefix in pages with the store's cursor", async () => {
    const kv = createFastlyKv(fakeFastlyKvStore().store);
    for (const key of ["p/3", "p/1", "q/1", "p/2"]) await kv.put(key, key, { ttlSeconds: 60 });
    const first = await kv.list("p/", { limit: 2 });
    expect(first.keys).toEqual(["p/1", "p/2"]);
    expect(first.cursor).toEqual(expect.any(String));
    expect(await kv.list("p/", { limit: 2, cursor: first.cursor })).toEqual({ keys: ["p/3"] });
    expect((await kv.list("")).keys).toEqual(["p/1", "p/2", "p/3", "q/1"]);
  });

  it("deletes an absent key without error, where js-compute rejects it; other failures still reject", async () => {
    const { store } = fakeFastlyKvStore();
    await expect(store.delete("absent")).rejects.toThrow(KV_DELETE_NOT_FOUND);
    await expect(createFastlyKv(store).delete("absent")).resolves.toBeUndefined();
    const failing = { ...store, delete: () => Promise.reject(new TypeError("KVStore delete: Too many requests.")) };
    await expect(createFastlyKv(failing).delete("k")).rejects.toThrow(/Too many requests/);
  });

  it("lists only the keys it can name: a key another writer stored unescaped is left out, not a failed listing", async () => {
    const { store } = fakeFastlyKvStore();
    const kv = createFastlyKv(store);
    for (const foreign of ["p/50%off", "p/a b", "p/%41"]) await store.put(foreign, "planted", { ttl: 60 });
    for (const key of ["p/ok", "p/#x"]) await kv.put(key, key, { ttlSeconds: 60 });
    expect((await kv.list("p/")).keys.sort()).toEqual(["p/#x", "p/ok"]);
    const first = await kv.list("p/", { limit: 2 }); // "p/%23x" and "p/%41": a page with one key it names
    expect(first.keys).toEqual(["p/#x"]);
    expect(await kv.list("p/", { limit: 10, cursor: first.cursor! })).toEqual({ keys: ["p/ok"] });
  });

  it("an empty key fails (the port's callers treat it as a miss) and reaches no store", async () => {
    const { store, puts } = fakeFastlyKvStore();
    const kv = createFastlyKv(store);
    await expect(kv.put("", "v", { ttlSeconds: 60 })).rejects.toThrow(RangeError);
    expect(puts).toEqual([]);
  });
});
