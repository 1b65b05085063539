// The key set cache on a clock of its own: fresh, stale and refreshed behind the request,
// kept through failures for the stale-if-error bound, one fetch at a time, retried with backoff.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type Background,
  cachedRemoteKeySet,
  FIRST_RETRY_MS,
  KeysUnavailableError,
  MAX_KEY_SET_BYTES,
} from "./jwks-cache.ts";

const URL = "https://idp.example/jwks";
const FRESH_MS = 600_000;
const STALE_MS = 86_400_000;

let current: { jwk: JWK };
let rotated: { jwk: JWK };

const pair = async (kid: string) => {
  const { publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256" } };
};

beforeAll(async () => {
  [current, rotated] = await Promise.all([pair("current"), pair("rotated")]);
});

/** A provider whose answer the test sets; counts its fetches; `hang` never answers. */
function provider() {
  const state = { mode: "up" as "up" | "failing" | "hang", keys: [] as JWK[], fetches: 0 };
  const send: typeof fetch = (_input, init) => {
    state.fetches++;
    if (state.mode === "failing") return Promise.resolve(new Response("down", { status: 500 }));
    if (state.mode === "hang")
      return new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    return Promise.resolve(Response.json({ keys: state.keys }));
  };
  return { state, send };
}

function setUp(timeoutMs = 5_000) {
  const clock = { at: 1_000_000 };
  const idp = provider();
  idp.state.keys = [current.jwk];
  const keySet = cachedRemoteKeySet({
    url: URL,
    fetch: idp.send,
    freshMs: FRESH_MS,
    staleIfErrorMs: STALE_MS,
    cooldownMs: 30_000,
    timeoutMs,
    now: () => clock.at,
  });
  const pending: Promise<unknown>[] = [];
  const background: Background = (work) => pending.push(work);
  const keyFor = async (kid: string): Promise<unknown> =>
    keySet({ alg: "ES256", kid }, { payload: "", signature: "", protected: "" } as never, background);
  const settle = () => Promise.all(pending.splice(0));
  return { clock, idp, keyFor, settle };
}

const unavailable = async (promise: Promise<unknown>) =>
  expect(
    await promise.then(
      () => undefined,
      (e: unknown) => e,
    ),
  ).toBeInstanceOf(KeysUnavailableError);

describe("the JWKS cache", () => {
  it("fetches once, then serves from memory while fresh", async () => {
    const { idp, keyFor, clock } = setUp();
    await keyFor("current");
    clock.at += FRESH_MS - 1;
    await keyFor("current");
    expect(idp.state.fetches).toBe(1);
  });

  it("once stale, answers from the stale set and refreshes behind the request, once", async () => {
    const { idp, keyFor, clock, settle } = setUp();
    await keyFor("current");
    clock.at += FRESH_MS + 1;
    await Promise.all([keyFor("current"), keyFor("current"), keyFor("current")]);
    await settle();
    expect(idp.state.fetches).toBe(2);
    await keyFor("current");
    expect(idp.state.fetches).toBe(2);
  });

  it("keeps the last good set through a failing provider, retrying with a growing delay, not per request", async () => {
    const { idp, keyFor, clock, settle } = setUp();
    await keyFor("current");
    idp.state.mode = "failing";
    // Two hours of requests, one a second: the cached key verifies throughout.
    for (let second = 0; second < 7_200; second++) {
      clock.at += 1_000;
      if (second === 0) clock.at += FRESH_MS;
      await keyFor("current");
      await settle();
    }
    // Backoff 1, 2, 4 … 60 s: a few hundred fetches at most, not 7,200.
    expect(idp.state.fetches).toBeGreaterThan(2);
    expect(idp.state.fetches).toBeLessThan(200);
    idp.state.mode = "up";
    clock.at += 60_000;
    await keyFor("current");
    await settle();
    const fetches = idp.state.fetches;
    clock.at += 1_000;
    await keyFor("current");
    expect(idp.state.fetches).toBe(fetches);
  });

  it("a key no cached copy holds is unavailable while the provider is down, and found once it is back", async () => {
    const { idp, keyFor, clock, settle } = setUp();
    await keyFor("current");
    idp.state.mode = "failing";
    idp.state.keys = [current.jwk, rotated.jwk];
    clock.at += FRESH_MS + 1;
    await keyFor("current");
    await settle();
    await unavailable(keyFor("rotated"));
    idp.state.mode = "up";
    clock.at += 60_000;
    await keyFor("current");
    await settle();
    expect(idp.state.fetches).toBe(3);
    expect(await keyFor("rotated")).toBeDefined();
  });

  it("a rotated key whose refetch failed is fetched again after the retry delay, not only once the set is stale", async () => {
    const { idp, keyFor, clock } = setUp();
    await keyFor("current");
    idp.state.keys = [current.jwk, rotated.jwk];
    idp.state.mode = "failing";
    clock.at += 60_000;
    await unavailable(keyFor("rotated"));
    // Within the retry delay the provider is not asked again.
    clock.at += FIRST_RETRY_MS - 1;
    await unavailable(keyFor("rotated"));
    expect(idp.state.fetches).toBe(2);
    idp.state.mode = "up";
    clock.at += 1;
    expect(await keyFor("rotated")).toBeDefined();
    expect(idp.state.fetches).toBe(3);
  });

  it("gives the stale set up after the stale-if-error bound", async () => {
    const { idp, keyFor, clock, settle } = setUp();
    await keyFor("current");
    idp.state.mode = "failing";
    clock.at += FRESH_MS + STALE_MS + 1;
    await unavailable(keyFor("current"));
    await settle();
  });

  it("a hanging provider does not hold the requests up that have a cached key", async () => {
    const { idp, keyFor, clock, settle } = setUp(50);
    await keyFor("current");
    idp.state.mode = "hang";
    clock.at += FRESH_MS + 1;
    const started = Date.now();
    await keyFor("current");
    expect(Date.now() - started).toBeLessThan(40);
    await settle();
    expect(idp.state.fetches).toBe(2);
  });

  it("without any set yet, a failure is answered as unavailable, and the next request within the backoff fetches nothing", async () => {
    const { idp, keyFor, clock } = setUp();
    idp.state.mode = "failing";
    await unavailable(keyFor("current"));
    await unavailable(keyFor("current"));
    expect(idp.state.fetches).toBe(1);
    idp.state.mode = "up";
    clock.at += 1_000;
    expect(await keyFor("current")).toBeDefined();
  });

  it("an unknown kid refetches at most once per cooldown while the provider is up", async () => {
    const { idp, keyFor, clock } = setUp();
    await keyFor("current");
    const noSuchKey = (e: unknown) => e;
    expect(await keyFor("nobody").catch(noSuchKey)).not.toBeInstanceOf(KeysUnavailableError);
    expect(idp.state.fetches).toBe(1);
    clock.at += 30_000;
    expect(await keyFor("nobody").catch(noSuchKey)).not.toBeInstanceOf(KeysUnavailableError);
    expect(await keyFor("nobody").catch(noSuchKey)).not.toBeInstanceOf(KeysUnavailableError);
    expect(idp.state.fetches).toBe(2);
  });

  it("a clock stepped back holds back neither a rotated key's refetch, its retry, nor the set's refresh", async () => {
    const { idp, keyFor, clock, settle } = setUp();
    await keyFor("current");
    clock.at -= 3_600_000; // an hour back: the cooldown and the freshness would last an hour more
    idp.state.keys = [current.jwk, rotated.jwk];
    expect(await keyFor("rotated")).toBeDefined();
    clock.at -= 3_600_000;
    idp.state.mode = "failing";
    await keyFor("current"); // fetched "in the future": refreshed behind the request, which fails
    await settle();
    expect(idp.state.fetches).toBe(3);
    clock.at -= 3_600_000;
    idp.state.mode = "up";
    await keyFor("current"); // the retry is due, though its delay ends an hour ahead of the clock
    await settle();
    expect(idp.state.fetches).toBe(4);
  });

  it("concurrent first requests share one fetch", async () => {
    const { idp, keyFor } = setUp();
    await Promise.all(Array.from({ length: 10 }, () => keyFor("current")));
    expect(idp.state.fetches).toBe(1);
  });

  it("keeps the last good set when the provider answers a set no token could be verified with", async () => {
    const { idp, keyFor, clock, settle } = setUp();
    await keyFor("current");
    const secretKey = { kty: "oct", k: "c2VjcmV0", kid: "current" } as JWK;
    for (const keys of [[], [secretKey], [{ ...current.jwk, use: "enc" }]]) {
      idp.state.keys = keys;
      clock.at += FRESH_MS + 60_000; // stale, and any retry due
      expect(await keyFor("current")).toBeDefined();
      await settle();
    }
    expect(idp.state.fetches).toBe(4);
  });

  it("answers the provider's public key for the token's kid", async () => {
    const { keyFor } = setUp();
    expect(((await keyFor("current")) as CryptoKey).type).toBe("public");
  });
});

/** A 200 answer: `padding` bytes of spaces, then a key set; counts the bytes the reader pulled. */
function paddedKeySet(padding: number, headers: Record<string, string> = {}) {
  const pulled = { bytes: 0 };
  const tail = new TextEncoder().encode(JSON.stringify({ keys: [current.jwk] }));
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let left = padding;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = left > 0 ? chunk.subarray(0, Math.min(left, chunk.length)) : tail;
        left -= next === tail ? 0 : next.length;
        pulled.bytes += next.length;
        controller.enqueue(next);
        if (next === tail) controller.close();
      },
    },
    { highWaterMark: 0 },
  ); // pulled only as read
  const send: typeof fetch = () => Promise.resolve(new Response(body, { status: 200, headers }));
  return { send, pulled };
}

const keySetOver = async (send: typeof fetch) =>
  cachedRemoteKeySet({ url: URL, fetch: send, freshMs: FRESH_MS, staleIfErrorMs: STALE_MS, cooldownMs: 30_000 })(
    { alg: "ES256", kid: "current" },
    { payload: "", signature: "", protected: "" } as never,
  );

describe("the JWKS fetch", () => {
  // A key set is a few kilobytes; an answer of hundreds of megabytes, read whole before parsing,
  // would take the instance's memory (a Worker has 128 MB) rather than fail as a bad answer does.
  it(`refuses an answer over ${MAX_KEY_SET_BYTES} bytes as a failed fetch, reading no further than that`, async () => {
    const { send, pulled } = paddedKeySet(8 * MAX_KEY_SET_BYTES);
    await unavailable(keySetOver(send));
    expect(pulled.bytes).toBeLessThanOrEqual(MAX_KEY_SET_BYTES + 64 * 1024);
    const declared = paddedKeySet(8 * MAX_KEY_SET_BYTES, { "content-length": String(8 * MAX_KEY_SET_BYTES + 200) });
    await unavailable(keySetOver(declared.send));
    expect(declared.pulled.bytes).toBe(0);
  });

  it("takes a key set padded to just under the bound", async () => {
    const { send } = paddedKeySet(MAX_KEY_SET_BYTES - 1024);
    expect(await keySetOver(send)).toBeDefined();
  });

  it("does not follow a redirect, even to a key set (the platform's fetch over real HTTP)", async () => {
    const server = createServer((req, res) => {
      if (req.url === "/moved")
        return void res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ keys: [current.jwk] }));
      res.writeHead(302, { location: "/moved" }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const keySet = cachedRemoteKeySet({
        url: `http://127.0.0.1:${port}/jwks`,
        fetch: (input, init) => fetch(input, init),
        freshMs: FRESH_MS,
        staleIfErrorMs: STALE_MS,
        cooldownMs: 30_000,
        storeAfterMs: 10,
      });
      const keyFor = keySet({ alg: "ES256", kid: "current" }, { payload: "", signature: "", protected: "" } as never);
      await expect(keyFor).rejects.toBeInstanceOf(KeysUnavailableError);
    } finally {
      server.close();
    }
  });
});
