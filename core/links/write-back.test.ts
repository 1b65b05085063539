// The confirmation of a lookup's copy when something fails: it never fails the lookup, and it runs
// after the answer, whether or not the put answered in time. The races themselves, through the whole
// app: core/links/routes-kv.integration.test.ts.
import { expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { sampleLink } from "../../test/links/support.ts";
import type { Logger } from "../log.ts";
import type { KvCache } from "../ports/kv.ts";
import type { Sql } from "../ports/sql.ts";
import { createLinkCache } from "./cache.ts";
import { linkKey } from "./kv-keys.ts";
import { writeBackConfirmed } from "./write-back.ts";

const link = sampleLink;

/** A database whose every read answers `rows`, or fails when `rows` is an error. */
const sqlAnswering = (rows: Record<string, unknown>[] | Error): Sql => ({
  query: async () => {
    if (rows instanceof Error) throw rows;
    return rows as never;
  },
  transaction: async () => {
    throw new Error("no transaction here");
  },
});

function setUp(kv: KvCache, sql: Sql) {
  const events: string[] = [];
  const logger: Logger = { log: (_level, event) => void events.push(event) };
  const cache = createLinkCache(kv, { tenantId: "acme", ttlSeconds: 300, logger, timeoutMs: 50 });
  const keptAlive: Promise<void>[] = [];
  const deps = { sql, cache, logger, keepAlive: (work: Promise<void>) => void keptAlive.push(work) };
  return { deps, events, keptAlive };
}

it("a confirming read that fails leaves the copy, logs link_write_back_unconfirmed and fails nothing", async () => {
  const kv = createMemoryKv();
  const { deps, events, keptAlive } = setUp(kv, sqlAnswering(new Error("database gone")));
  await expect(writeBackConfirmed(deps, link, Date.now())).resolves.toBeUndefined();
  expect(keptAlive).toHaveLength(1);
  await expect(keptAlive[0]).resolves.toBeUndefined();
  expect(await kv.get(await linkKey("acme", link))).not.toBeNull();
  expect(events).toEqual(["link_write_back_unconfirmed"]);
});

it("a put that fails is confirmed after the answer: its copy of a link gone since is deleted there", async () => {
  const store = createMemoryKv();
  // The put reaches the store, but its answer is an error (a lost answer): the copy may be there.
  const kv: KvCache = {
    ...store,
    put: async (key, value, options) => {
      await store.put(key, value, options);
      throw new Error("answer lost");
    },
  };
  const { deps, events, keptAlive } = setUp(kv, sqlAnswering([]));
  await writeBackConfirmed(deps, link, Date.now());
  expect(keptAlive).toHaveLength(1);
  await keptAlive[0];
  expect(await store.get(await linkKey("acme", link))).toBeNull();
  expect(events).toEqual(["link_cache_failed"]);
});

it("writes nothing and confirms nothing for a copy whose lifetime is already over", async () => {
  const kv = createMemoryKv();
  const { deps, keptAlive } = setUp(kv, sqlAnswering(new Error("never asked")));
  await writeBackConfirmed(deps, link, Date.now() - 300_000);
  expect([await kv.get(await linkKey("acme", link)), keptAlive]).toEqual([null, []]);
});
