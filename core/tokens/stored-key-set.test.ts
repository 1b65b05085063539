// The key set outliving an instance: instances (key set caches) over one KV store and one clock,
// one of them started while the provider is down.
import { errors, exportJWK, generateKeyPair, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { LINK_KEY_PREFIX } from "../links/kv-keys.ts";
import { silentLogger } from "../log.ts";
import { aroundEachKvCall } from "../ports/around-each-call.ts";
import { type KvCache, MIN_KV_TTL_SECONDS } from "../ports/kv.ts";
import { type Background, cachedRemoteKeySet, FIRST_RETRY_MS, KeysUnavailableError } from "./jwks-cache.ts";
import { KEY_SET_KEY_PREFIX, keySetKey, kvKeySetStore } from "./stored-key-set.ts";

const URL = "https://idp.example/jwks";
const FRESH_MS = 600_000;
const STALE_MS = 86_400_000;

let current: JWK;

beforeAll(async () => {
  const { publicKey } = await generateKeyPair("ES256", { extractable: true });
  current = { ...(await exportJWK(publicKey)), kid: "current", alg: "ES256" };
});

type Mode = "up" | "failing" | "hang";

/** One provider, one clock and one KV store; `instance()` starts a cache with an empty memory. */
function deployment() {
  const clock = { at: 1_000_000 };
  const provider = { mode: "up" as Mode, fetches: 0 };
  const kv = countingKv(createMemoryKv(() => clock.at));
  const send: typeof fetch = (_input, init) => {
    provider.fetches++;
    if (provider.mode === "failing") return Promise.resolve(new Response("down", { status: 500 }));
    if (provider.mode === "hang")
      return new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    return Promise.resolve(Response.json({ keys: [current] }));
  };
  const pending: Promise<unknown>[] = [];
  const background: Background = (work) => pending.push(work);

  function instance({ url = URL, store = kv as KvCache, timeoutMs = 5_000, storeAfterMs = 1_000 } = {}) {
    const now = () => clock.at;
    const keySet = cachedRemoteKeySet({
      url,
      fetch: send,
      freshMs: FRESH_MS,
      staleIfErrorMs: STALE_MS,
      cooldownMs: 30_000,
      timeoutMs,
      storeAfterMs,
      store: kvKeySetStore(store, {
        url,
        freshMs: FRESH_MS,
        lifetimeMs: FRESH_MS + STALE_MS,
        readEveryMs: FIRST_RETRY_MS,
        timeoutMs: 50,
        logger: silentLogger,
        now,
      }),
      now,
    });
    return async (kid = "current"): Promise<unknown> =>
      keySet({ alg: "ES256", kid }, { payload: "", signature: "", protected: "" } as never, background);
  }
  const settle = () => Promise.all(pending.splice(0));
  return { clock, provider, kv, instance, settle, pending };
}

/** The store, each call counted, and the TTL of each write kept. */
function countingKv(kv: KvCache) {
  const calls: string[] = [];
  const ttls: number[] = [];
  const counted = aroundEachKvCall(kv, (call, method) => (calls.push(method), call()));
  return {
    calls,
    ttls,
    ...counted,
    put: (key: string, value: string, options: { ttlSeconds: number }) => (
      ttls.push(options.ttlSeconds), counted.put(key, value, options)
    ),
  };
}

const failingKv: KvCache = {
  get: () => Promise.reject(new Error("kv down")),
  put: () => Promise.reject(new Error("kv down")),
  delete: () => Promise.reject(new Error("kv down")),
  list: () => Promise.reject(new Error("kv down")),
};
const hangingKv: KvCache = {
  get: () => new Promise(() => {}),
  put: () => new Promise(() => {}),
  delete: () => new Promise(() => {}),
  list: () => new Promise(() => {}),
};

const unavailable = (promise: Promise<unknown>) => expect(promise).rejects.toBeInstanceOf(KeysUnavailableError);

/** One instance fetches the set (the provider up), which it stores behind the request. */
async function fetchedByOne(d: ReturnType<typeof deployment>) {
  await d.instance()();
  await d.settle();
}

describe("the key set kept in the KV store", () => {
  it("a fresh instance with the provider down verifies with the set another one stored", async () => {
    const d = deployment();
    await fetchedByOne(d);
    d.provider.mode = "failing";
    d.clock.at += FRESH_MS + 60_000;
    const fetches = d.provider.fetches;
    const fresh = d.instance();
    expect(((await fresh()) as CryptoKey).type).toBe("public");
    // Its refresh behind the request failed; it keeps the stored set and retries with backoff.
    await d.settle();
    expect(d.provider.fetches).toBe(fetches + 1);
    d.clock.at += 100;
    expect(await fresh()).toBeDefined();
    expect(d.provider.fetches).toBe(fetches + 1);
  });

  it("a fresh instance with the provider hanging answers from the stored set once the provider is late, not at its deadline", async () => {
    const d = deployment();
    await fetchedByOne(d);
    d.provider.mode = "hang";
    d.clock.at += FRESH_MS + 1;
    const fresh = d.instance({ timeoutMs: 1_000, storeAfterMs: 50 });
    const started = Date.now();
    expect(await fresh()).toBeDefined();
    expect(Date.now() - started).toBeLessThan(500);
    await d.settle();
  });

  it("a stored set, however fresh, is not used while the provider answers: the provider is asked", async () => {
    const d = deployment();
    await fetchedByOne(d);
    d.clock.at += 1;
    await d.instance()();
    expect(d.provider.fetches).toBe(2);
  });

  it("a key set planted in the store signs nothing while the provider answers, even under a kid the provider uses", async () => {
    const d = deployment();
    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    const planted = { ...(await exportJWK(publicKey)), alg: "ES256" };
    const entry = {
      url: URL,
      fetchedAt: d.clock.at,
      jwks: {
        keys: [
          { ...planted, kid: "current" },
          { ...planted, kid: "forged" },
        ],
      },
    };
    await d.kv.put(await keySetKey(URL), JSON.stringify(entry), { ttlSeconds: 86_400 });
    const fresh = d.instance();
    const key = (await fresh("current")) as CryptoKey;
    expect((await exportJWK(key)).x).toBe(current.x);
    expect(await fresh("forged").catch((error: unknown) => error)).toBeInstanceOf(errors.JWKSNoMatchingKey);
    expect(d.kv.calls).not.toContain("get");
  });

  it("a stored set past the stale-if-error bound is not used: 503", async () => {
    const d = deployment();
    await fetchedByOne(d);
    // Stores keep entries longer than asked (a minimum TTL, expiry that lags): the reader's own
    // check refuses it.
    const key = await keySetKey(URL);
    await d.kv.put(key, (await d.kv.get(key))!, { ttlSeconds: (FRESH_MS + STALE_MS) / 1000 + 3_600 });
    d.provider.mode = "failing";
    d.clock.at += FRESH_MS + STALE_MS + 1;
    await unavailable(d.instance()());
  });

  it("a set stored for another AUTH_JWKS_URL is not used", async () => {
    const d = deployment();
    await fetchedByOne(d);
    d.provider.mode = "failing";
    await unavailable(d.instance({ url: "https://other-idp.example/jwks" })());
  });

  it("an entry at this URL's key naming another URL is not used", async () => {
    const d = deployment();
    const other = "https://other-idp.example/jwks";
    await d.instance({ url: other })();
    await d.settle();
    const copied = await d.kv.get(await keySetKey(other));
    await d.kv.put(await keySetKey(URL), copied!, { ttlSeconds: 600 });
    d.provider.mode = "failing";
    await unavailable(d.instance()());
  });

  it.each([
    ["failing", failingKv],
    ["hanging", hangingKv],
  ])("a %s KV store: verification goes on as without it", async (_label, store) => {
    const d = deployment();
    const instance = d.instance({ store });
    expect(await instance()).toBeDefined();
    await d.settle();
    d.provider.mode = "failing";
    d.clock.at += FRESH_MS + 1;
    expect(await instance()).toBeDefined();
    await d.settle();
    await unavailable(d.instance({ store })());
  });

  it("is written only from a successful fetch, behind the request, for the fresh and stale-if-error span", async () => {
    const d = deployment();
    d.provider.mode = "failing";
    await unavailable(d.instance()());
    await d.settle();
    expect(d.kv.calls).not.toContain("put");
    d.provider.mode = "up";
    d.clock.at += FIRST_RETRY_MS;
    const instance = d.instance();
    await instance();
    expect(d.pending).toHaveLength(1);
    await d.settle();
    expect(d.kv.ttls).toEqual([(FRESH_MS + STALE_MS) / 1000]);
    const stored = JSON.parse((await d.kv.get(await keySetKey(URL)))!);
    expect(stored).toEqual({ url: URL, fetchedAt: d.clock.at, jwks: { keys: [current] } });
  });

  it("an instance with a usable set in memory never touches the store for keys", async () => {
    const d = deployment();
    const instance = d.instance();
    await instance();
    await d.settle();
    const calls = d.kv.calls.length;
    for (let minute = 0; minute < 30; minute++) {
      d.clock.at += 60_000;
      await instance();
      await d.settle();
    }
    // Two refreshes in 30 minutes (at 11 and 22), each writing the refreshed set; no read.
    expect(d.provider.fetches).toBe(3);
    expect(d.kv.calls.slice(calls)).toEqual(["put", "put"]);
  });

  it("an unchanged set refetched while the stored one is fresh is not written again", async () => {
    const d = deployment();
    const instance = d.instance();
    await instance();
    await d.settle();
    d.clock.at += 30_000;
    // An unknown kid refetches the set: the same keys come back.
    await instance("nobody").catch(() => undefined);
    await d.settle();
    expect(d.provider.fetches).toBe(2);
    expect(d.kv.calls.filter((call) => call === "put")).toHaveLength(1);
  });

  it("an instance with nothing to verify with reads the store once per retry, not per request", async () => {
    const d = deployment();
    d.provider.mode = "failing";
    const fresh = d.instance();
    await unavailable(fresh());
    await unavailable(fresh());
    await unavailable(fresh());
    expect(d.kv.calls).toEqual(["get"]);
  });

  it("an instance with nothing to verify with whose clock steps back reads the store again at once", async () => {
    const d = deployment();
    d.provider.mode = "failing";
    const fresh = d.instance();
    await unavailable(fresh());
    d.clock.at -= 3_600_000; // an hour back: the next read would otherwise wait an hour
    await unavailable(fresh());
    expect(d.kv.calls).toEqual(["get", "get"]);
  });

  it("the TTL is never below the store's minimum", async () => {
    const d = deployment();
    const store = kvKeySetStore(d.kv, {
      url: URL,
      freshMs: 1_000,
      lifetimeMs: 1_000,
      readEveryMs: FIRST_RETRY_MS,
      timeoutMs: 50,
      logger: silentLogger,
      now: () => d.clock.at,
    });
    await store.keep({ jwks: { keys: [] }, keys: async () => ({}) as CryptoKey, fetchedAt: d.clock.at });
    expect(d.kv.ttls).toEqual([MIN_KV_TTL_SECONDS]);
  });

  it("lives under a key of its own, apart from every link cache key", async () => {
    const key = await keySetKey(URL);
    expect(key).toMatch(/^tokens\/jwks\/v1\/[0-9a-f]{64}$/);
    expect(key.startsWith(KEY_SET_KEY_PREFIX)).toBe(true);
    expect(KEY_SET_KEY_PREFIX.startsWith(LINK_KEY_PREFIX.split("/")[0]!)).toBe(false);
    expect(await keySetKey("https://other-idp.example/jwks")).not.toBe(key);
  });
});
