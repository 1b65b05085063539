import { beforeEach, describe, expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { sampleLink } from "../../test/links/support.ts";
import type { Logger } from "../log.ts";
import type { KvCache } from "../ports/kv.ts";
import { createLinkCache, decodeEntry } from "./cache.ts";
import { linkKey } from "./kv-keys.ts";

const TTL_SECONDS = 300;
const link = sampleLink;

let clock = 1_000_000;
const now = () => clock;
let events: { event: string; fields: Record<string, unknown> }[] = [];
const logger: Logger = { log: (_level, event, fields = {}) => events.push({ event, fields }) };

beforeEach(() => {
  clock = 1_000_000;
  events = [];
});

const cacheOver = (kv: KvCache, timeoutMs = 50) =>
  createLinkCache(kv, { tenantId: "acme", ttlSeconds: TTL_SECONDS, logger, timeoutMs, now });

/** A store that remembers every put and never expires anything. */
function recordingKv() {
  const values = new Map<string, string>();
  const puts: { key: string; ttlSeconds: number }[] = [];
  const kv: KvCache = {
    get: async (key) => values.get(key) ?? null,
    put: async (key, value, { ttlSeconds }) => {
      puts.push({ key, ttlSeconds });
      values.set(key, value);
    },
    delete: async (key) => void values.delete(key),
    list: async () => ({ keys: [...values.keys()] }),
  };
  return { kv, values, puts };
}

describe("link cache", () => {
  it("serves what was written, until readAt + TTL even when the store keeps it longer", async () => {
    const { kv } = recordingKv();
    const cache = cacheOver(kv);
    expect(await cache.write(link, clock)).toBe(true);
    expect(await cache.read(link)).toEqual(link);
    clock += TTL_SECONDS * 1000 - 1;
    expect(await cache.read(link)).toEqual(link);
    clock += 1;
    expect(await cache.read(link)).toBeUndefined();
    expect(await kv.get(await linkKey("acme", link))).not.toBeNull(); // the store still holds it
  });

  it("serves what the store holds now: an entry read again is the same frozen link, a rewritten one is read anew", async () => {
    const { kv } = recordingKv();
    const cache = cacheOver(kv);
    await cache.write(link, clock);
    const first = await cache.read(link);
    expect(await cache.read(link)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    await cache.write({ ...link, displayName: "Alice" }, clock);
    expect(await cache.read(link)).toEqual({ ...link, displayName: "Alice" });
  });

  it("gives the store only the lifetime left since the read, never less than 60 s", async () => {
    const { kv, puts } = recordingKv();
    const cache = cacheOver(kv);
    const readAt = clock;
    clock += 100_000;
    await cache.write(link, readAt);
    clock = readAt + 280_000;
    await cache.write(link, readAt);
    expect(puts.map((p) => p.ttlSeconds)).toEqual([200, 60]);
  });

  it("skips a write whose lifetime is already over", async () => {
    const { kv, puts } = recordingKv();
    const cache = cacheOver(kv);
    const readAt = clock;
    clock += TTL_SECONDS * 1000;
    expect(await cache.write(link, readAt)).toBe(false);
    expect(puts).toEqual([]);
  });

  it("works with the memory store's own expiry", async () => {
    const kv = createMemoryKv(now);
    const cache = cacheOver(kv);
    await cache.write(link, clock);
    expect(await cache.read(link)).toEqual(link);
    clock += TTL_SECONDS * 1000;
    expect(await cache.read(link)).toBeUndefined();
  });

  it("removes entries", async () => {
    const { kv, values } = recordingKv();
    const cache = cacheOver(kv);
    await cache.write(link, clock);
    expect(await cache.remove(link)).toBe(true);
    expect(values.size).toBe(0);
    expect(await cache.read(link)).toBeUndefined();
  });

  it("treats unreadable entries and entries of another target as misses", async () => {
    const { kv, values } = recordingKv();
    const cache = cacheOver(kv);
    const key = await linkKey("acme", link);
    values.set(key, "not json");
    expect(await cache.read(link)).toBeUndefined();
    values.set(key, JSON.stringify({ tenantId: "acme", link: { ...link, userId: 7 }, readAt: clock }));
    expect(await cache.read(link)).toBeUndefined();
    // A value of before tenants existed (no tenant) is unreadable, never served.
    values.set(key, JSON.stringify({ link, readAt: clock }));
    expect(await cache.read(link)).toBeUndefined();
    values.set(key, JSON.stringify({ tenantId: "acme", link: { ...link, externalAccountId: "43" }, readAt: clock }));
    expect(await cache.read(link)).toBeUndefined();
    expect(events.filter((e) => e.event === "link_cache_unreadable")).toHaveLength(3);
  });

  // A key is the SHA-256 of the provider and external id, which anyone holding a candidate e-mail
  // can compute: in a log shipped elsewhere it would say that account was looked up, and where.
  it("logs a failed call or an unreadable entry by its operation and tenant, never its key", async () => {
    const account = { ...link, provider: "google", externalAccountId: "alice+work@example.com" };
    const key = await linkKey("acme", account);
    const { kv, values } = recordingKv();
    values.set(key, "not json");
    await cacheOver(kv).read(account);
    const down = () => Promise.reject(new Error("kv down"));
    const failing = cacheOver({ get: down, put: down, delete: down, list: down } as unknown as KvCache);
    await failing.read(account);
    await failing.write(account, clock);
    await failing.remove(account);
    expect(events.map((e) => [e.event, e.fields.operation, e.fields.tenantId])).toEqual([
      ["link_cache_unreadable", undefined, "acme"],
      ["link_cache_failed", "get", "acme"],
      ["link_cache_failed", "put", "acme"],
      ["link_cache_failed", "delete", "acme"],
    ]);
    const logged = JSON.stringify(events);
    expect(logged).not.toContain(key.slice(key.lastIndexOf("/") + 1));
    expect(logged).not.toContain(account.externalAccountId);
  });

  it("serves no entry claiming to be read in the future, however far: none outlives the TTL from the reader's clock", async () => {
    const { kv, values } = recordingKv();
    const cache = cacheOver(kv);
    const key = await linkKey("acme", link);
    const planted = (readAt: number) => values.set(key, JSON.stringify({ tenantId: "acme", link, readAt }));
    // As planted in a review: read "30 days from now", then looked up every day for 30 days.
    const thirtyDays = 30 * 86_400_000;
    planted(clock + thirtyDays);
    for (let day = 0; day <= 30; day++) {
      expect(await cache.read(link), `day ${day}`).toBeUndefined();
      clock += 86_400_000 - 1;
    }
    // No leeway: a millisecond ahead is as refused; read now, it is served for the TTL only.
    planted(clock + 1);
    expect(await cache.read(link)).toBeUndefined();
    planted(clock);
    expect(await cache.read(link)).toEqual(link);
    clock += TTL_SECONDS * 1000;
    expect(await cache.read(link)).toBeUndefined();
  });

  it("serves an entry to its own tenant only, even one found under this tenant's key", async () => {
    const { kv, values } = recordingKv();
    const acme = cacheOver(kv);
    const globex = createLinkCache(kv, { tenantId: "globex", ttlSeconds: TTL_SECONDS, logger, timeoutMs: 50, now });
    await acme.write(link, clock);
    expect(await globex.read(link)).toBeUndefined();
    expect(await acme.read(link)).toEqual(link);
    values.set(await linkKey("globex", link), JSON.stringify({ tenantId: "acme", link, readAt: clock }));
    expect(await globex.read(link)).toBeUndefined();
    expect(await globex.remove(link)).toBe(true);
    expect(await acme.read(link)).toEqual(link);
  });

  // A resync deletes every listed key that is not its tenant's entry: another tenant's keys in a
  // listing (a store's cursor, which the admin hands back, may lead anywhere) would be deleted.
  it("lists its own tenant's keys only, whatever else the store's listing holds", async () => {
    const { kv } = recordingKv();
    const globex = createLinkCache(kv, { tenantId: "globex", ttlSeconds: TTL_SECONDS, logger, timeoutMs: 50, now });
    await cacheOver(kv).write(link, clock);
    await globex.write(link, clock);
    await kv.put("links/v2/globex-other/x", "{}", { ttlSeconds: 60 });
    expect(await globex.listEntries(undefined, 100)).toEqual({
      ok: true,
      value: { keys: [await linkKey("globex", link)] },
    });
  });

  describe("when the store fails", () => {
    const failing = (how: "reject" | "throw" | "hang"): KvCache => {
      const fail = () => {
        if (how === "throw") throw new Error("kv down");
        return how === "reject" ? Promise.reject(new Error("kv down")) : new Promise<never>(() => {});
      };
      return { get: fail, put: fail, delete: fail, list: fail } as unknown as KvCache;
    };

    for (const how of ["reject", "throw", "hang"] as const) {
      it(`reports a miss or a failed write when every call ${how}s, and logs each`, async () => {
        const cache = cacheOver(failing(how));
        expect(await cache.read(link)).toBeUndefined();
        expect(await cache.write(link, clock)).toBe(false);
        expect(await cache.remove(link)).toBe(false);
        expect(await cache.listEntries(undefined, 10)).toEqual({ ok: false });
        expect(events.map((e) => [e.event, e.fields.operation])).toEqual([
          ["link_cache_failed", "get"],
          ["link_cache_failed", "put"],
          ["link_cache_failed", "delete"],
          ["link_cache_failed", "list"],
        ]);
        const expected = how === "hang" ? /no answer within 50 ms/ : /kv down/;
        for (const { fields } of events) expect(fields.error).toMatch(expected);
      });
    }
  });
});

describe("decodeEntry", () => {
  it("round-trips what the cache writes and refuses anything else", () => {
    expect(decodeEntry(JSON.stringify({ tenantId: "acme", link, readAt: 5 }))).toEqual({
      tenantId: "acme",
      link,
      readAt: 5,
    });
    expect(decodeEntry(JSON.stringify({ link, readAt: 5 }))).toBeUndefined();
    expect(decodeEntry(JSON.stringify({ link }))).toBeUndefined();
    expect(decodeEntry("{")).toBeUndefined();
  });
});
