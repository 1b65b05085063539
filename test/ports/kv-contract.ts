// What every KV cache adapter must do (core/ports/kv.ts), run against each store: memory, Workers
// KV in workerd through Miniflare, Viceroy's Fastly KV Store (and a fake of it), and real Deno KV under
// `deno test`. Keys of each case have their own prefix, so cases share one opened store.
import assert from "node:assert/strict";
import { KV_GET_MANY_MAX, type KvCache } from "../../core/ports/kv.ts";
import type { ContractCase } from "./contract.ts";

async function listAll(kv: KvCache, prefix: string, limit: number): Promise<{ keys: string[]; pages: number }> {
  const keys: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await kv.list(prefix, { limit, ...(cursor ? { cursor } : {}) });
    keys.push(...page.keys);
    cursor = page.cursor;
    pages++;
  } while (cursor && pages < 100);
  return { keys, pages };
}

export const kvContract: readonly ContractCase<KvCache>[] = [
  [
    "gets what was put, and null once deleted or never put",
    async (kv) => {
      assert.equal(await kv.get("contract/absent"), null);
      await kv.put("contract/a", '{"x":1}', { ttlSeconds: 60 });
      assert.equal(await kv.get("contract/a"), '{"x":1}');
      await kv.put("contract/a", "second", { ttlSeconds: 300 });
      assert.equal(await kv.get("contract/a"), "second");
      await kv.delete("contract/a");
      assert.equal(await kv.get("contract/a"), null);
      await kv.delete("contract/a"); // deleting an absent key is no error
    },
  ],
  [
    "reads many keys in one call where the store can (getMany): their values in the order asked, null where absent",
    async (kv) => {
      if (!kv.getMany) return; // a store without bulk reads is read one key at a time
      const keys = Array.from({ length: KV_GET_MANY_MAX }, (_, i) => `many/${i}`);
      for (const key of keys.slice(0, 3)) await kv.put(key, `value of ${key}`, { ttlSeconds: 60 });
      const asked = [keys[2]!, "many/absent", keys[0]!, ...keys.slice(3)]; // as many as one call takes
      assert.equal(asked.length, KV_GET_MANY_MAX);
      const values = await kv.getMany(asked);
      assert.deepEqual(values.slice(0, 3), ["value of many/2", null, "value of many/0"]);
      assert.deepEqual(
        values.slice(3),
        keys.slice(3).map(() => null),
      );
      assert.deepEqual(await kv.getMany([]), []);
    },
  ],
  [
    "lists keys by string prefix, in order, page by page, each key once",
    async (kv) => {
      const keys = ["list/b", "list/a", "list/c/1", "list/c/2", "list/é"];
      for (const key of [...keys, "lis", "listing", "other/list/a"]) await kv.put(key, "v", { ttlSeconds: 60 });
      const whole = await kv.list("list/");
      assert.deepEqual(whole.keys, [...keys].sort());
      assert.equal(whole.cursor, undefined);
      const paged = await listAll(kv, "list/", 2);
      assert.deepEqual(paged.keys, [...keys].sort());
      assert.equal(paged.pages, 3);
      assert.deepEqual((await kv.list("list/c/")).keys, ["list/c/1", "list/c/2"]);
      assert.deepEqual((await kv.list("nothing-here/")).keys, []);
    },
  ],
  [
    "keeps a value byte for byte, whatever it holds",
    async (kv) => {
      const value = `{"name":"é😀\\u0000","n":${"9".repeat(30)}}`;
      await kv.put("bytes/a", value, { ttlSeconds: 60 });
      assert.equal(await kv.get("bytes/a"), value);
    },
  ],
];
