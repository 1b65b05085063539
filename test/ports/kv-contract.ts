// What every KV cache adapter must do, run against the real store of each (Workers KV in
// workerd through Miniflare, Deno KV under `deno test`). Written with vitest's API only, so it
// runs in both test runners.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KvCache } from "../../core/ports/kv.ts";

export interface OpenedKv {
  kv: KvCache;
  close(): Promise<void>;
}

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

export function kvCacheContract(name: string, open: () => Promise<OpenedKv>): void {
  describe(`KV cache contract: ${name}`, () => {
    let opened: OpenedKv | undefined;
    const kv = () => opened!.kv;

    beforeAll(async () => {
      opened = await open();
    });
    afterAll(async () => {
      await opened?.close();
    });

    it("gets what was put, and null once deleted or never put", async () => {
      expect(await kv().get("contract/absent")).toBeNull();
      await kv().put("contract/a", '{"x":1}', { ttlSeconds: 60 });
      expect(await kv().get("contract/a")).toBe('{"x":1}');
      await kv().put("contract/a", "second", { ttlSeconds: 300 });
      expect(await kv().get("contract/a")).toBe("second");
      await kv().delete("contract/a");
      expect(await kv().get("contract/a")).toBeNull();
      await kv().delete("contract/a"); // deleting an absent key is no error
    });

    it("lists keys by string prefix, in order, page by page, each key once", async () => {
      const keys = ["list/b", "list/a", "list/c/1", "list/c/2", "list/é"];
      for (const key of [...keys, "lis", "listing", "other/list/a"]) await kv().put(key, "v", { ttlSeconds: 60 });
      const whole = await kv().list("list/");
      expect(whole.keys).toEqual([...keys].sort());
      expect(whole.cursor).toBeUndefined();
      const paged = await listAll(kv(), "list/", 2);
      expect(paged.keys).toEqual([...keys].sort());
      expect(paged.pages).toBe(3);
      expect((await kv().list("list/c/")).keys).toEqual(["list/c/1", "list/c/2"]);
      expect((await kv().list("nothing-here/")).keys).toEqual([]);
    });
  });
}
