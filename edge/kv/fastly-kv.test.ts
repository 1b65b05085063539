import { describe, expect, it } from "vitest";
import { KvStores, kvKeyProblem } from "../../dev/fastly-host/kv-stores.ts";
import { describeContract } from "../../test/ports/describe-contract.ts";
import { kvContract } from "../../test/ports/kv-contract.ts";
import { createFastlyKv, type FastlyKvStore } from "./fastly-kv.ts";

/** A KVStore with Fastly's rules (the test host's store), refusing bad keys like js-compute does. */
function fastlyLikeStore(now: () => number = Date.now) {
  const stores = new KvStores(["cache"], now);
  const check = (key: string) => {
    const problem = kvKeyProblem(key);
    if (problem) throw new TypeError(`KVStore: invalid key: ${problem}`);
  };
  const puts: { key: string; ttl: number | undefined }[] = [];
  const store: FastlyKvStore = {
    async get(key) {
      check(key);
      const entry = stores.lookup("cache", key);
      return entry && { text: async () => new TextDecoder().decode(entry.body) };
    },
    async put(key, value, { ttl }) {
      check(key);
      puts.push({ key, ttl });
      stores.insert("cache", key, { body: new TextEncoder().encode(value), mode: "overwrite", ttlSeconds: ttl });
    },
    async delete(key) {
      check(key);
      stores.delete("cache", key);
    },
    async list({ prefix, cursor, limit }) {
      const listing = stores.list("cache", { prefix, cursor, limit });
      if (typeof listing !== "string") throw new TypeError("KVStore.list failed");
      const { data, meta } = JSON.parse(listing) as { data: string[]; meta: { next_cursor?: string } };
      return { list: data, cursor: meta.next_cursor };
    },
  };
  return { store, puts };
}

describeContract("KV cache contract: Fastly KV Store (the test host's store)", kvContract, async () => ({
  port: createFastlyKv(fastlyLikeStore().store),
  close: async () => {},
}));

describe("KvCache over a Fastly KV Store", () => {
  it("stores, reads and deletes, with the TTL passed on", async () => {
    const { store, puts } = fastlyLikeStore();
    const kv = createFastlyKv(store);
    await kv.put("links/v1/abc", "value", { ttlSeconds: 300 });
    expect(await kv.get("links/v1/abc")).toBe("value");
    expect(puts).toEqual([{ key: "links/v1/abc", ttl: 300 }]);
    await kv.delete("links/v1/abc");
    expect(await kv.get("links/v1/abc")).toBeNull();
  });

  it("expires entries after their TTL", async () => {
    let now = 1_000_000;
    const kv = createFastlyKv(fastlyLikeStore(() => now).store);
    await kv.put("k", "v", { ttlSeconds: 60 });
    now += 59_999;
    expect(await kv.get("k")).toBe("v");
    now += 1;
    expect(await kv.get("k")).toBeNull();
  });

  it("takes keys Fastly would refuse, and lists them back as given", async () => {
    const kv = createFastlyKv(fastlyLikeStore().store);
    const keys = ["odd/..", "odd/#1", "odd/a?b", "odd/.well-known"];
    for (const key of keys) await kv.put(key, key, { ttlSeconds: 60 });
    for (const key of keys) expect(await kv.get(key)).toBe(key);
    expect((await kv.list("odd/")).keys.sort()).toEqual([...keys].sort());
  });

  it("lists by prefix in pages with the store's cursor", async () => {
    const kv = createFastlyKv(fastlyLikeStore().store);
    for (const key of ["p/3", "p/1", "q/1", "p/2"]) await kv.put(key, key, { ttlSeconds: 60 });
    const first = await kv.list("p/", { limit: 2 });
    expect(first.keys).toEqual(["p/1", "p/2"]);
    expect(first.cursor).toEqual(expect.any(String));
    expect(await kv.list("p/", { limit: 2, cursor: first.cursor })).toEqual({ keys: ["p/3"] });
    expect((await kv.list("")).keys).toEqual(["p/1", "p/2", "p/3", "q/1"]);
  });

  it("an empty key fails (the port's callers treat it as a miss) and reaches no store", async () => {
    const { store, puts } = fastlyLikeStore();
    const kv = createFastlyKv(store);
    await expect(kv.put("", "v", { ttlSeconds: 60 })).rejects.toThrow(RangeError);
    expect(puts).toEqual([]);
  });
});
