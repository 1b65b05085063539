// The identity provider goes away for longer than the key set's lifetime (the server runs with
// AUTH_JWKS_CACHE_SECONDS=1): it fails, hangs, redirects and comes back. Tokens whose key was cached keep
// working throughout, without waiting for the provider; only a token whose key no cached copy
// holds gets 503, until the provider answers again.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { type Call, expectProblem, expectStatus } from "../client.ts";
import type { IdentityProvider } from "../identity-provider.ts";

/** The lifetime the server under test is started with. */
export const OUTAGE_CACHE_SECONDS = 1;

const JWKS_FETCH_TIMEOUT_MS = 5_000;

// Requests per cache lifetime, sent WAVE at a time. On Fastly Compute instances share nothing but
// the KV store: each instance that starts during the outage asks the provider once when its retry
// is due. A wave no wider than the instances Viceroy keeps waiting for a next request (5) is
// served by instances that already hold a set, as a steady flow is on every platform; so "fewer
// fetches than half the requests" proves, on every runtime, that a request does not fetch.
const REQUESTS_PER_ROUND = 40;
const WAVE = 4;
// Five lifetimes of ten waves each: a loaded machine stretches a wave to half a second.
const ROUNDS_TIMEOUT_MS = 120_000;

/**
 * On every runtime. On Fastly Compute (and Viceroy) concurrent requests run in instances of their
 * own, new ones started while older ones are busy: a request often runs where no key set was ever
 * fetched, and verifies with the one an earlier instance kept in the KV store.
 */
export function providerOutageCases(call: Call, provider: () => IdentityProvider) {
  const cachedKeyToken = () => provider().bearer({ alg: "ES256" });
  const links = async (as: string) => call("GET", "/v1/me/links", { as });

  describe("sign-in while the identity provider is down", () => {
    it("a provider token is accepted while the provider is up (its key set is cached)", async () => {
      expectStatus(await links(await cachedKeyToken()), 200);
    });

    it(
      "the provider answering 500 for several cache lifetimes: tokens with a cached key keep working, without a fetch per request",
      async () => {
        provider().setAvailability("failing");
        const before = provider().fetches();
        let requests = 0;
        for (let round = 0; round < 5; round++) {
          await sleep(OUTAGE_CACHE_SECONDS * 1000);
          for (let sent = 0; sent < REQUESTS_PER_ROUND; sent += WAVE) {
            const answers = await Promise.all(Array.from({ length: WAVE }, async () => links(await cachedKeyToken())));
            for (const answer of answers) expectStatus(answer, 200);
            requests += answers.length;
          }
        }
        expect(provider().fetches() - before).toBeLessThan(requests / 2);
      },
      ROUNDS_TIMEOUT_MS,
    );

    it("a token whose key no cached copy holds: 503 keys_unavailable with Retry-After", async () => {
      provider().setAvailability("failing"); // already so where the cases before it ran
      provider().rotate();
      const answer = await links(await provider().bearer({ alg: "ES256", rotated: true }));
      expectProblem(answer, 503, "keys_unavailable");
      expect(answer.headers.get("retry-after")).toBe("5");
    });

    it("the provider hanging: tokens with a cached key are answered without waiting for it", async () => {
      provider().setAvailability("hanging");
      for (let round = 0; round < 3; round++) {
        await sleep(OUTAGE_CACHE_SECONDS * 1000);
        const started = Date.now();
        expectStatus(await links(await cachedKeyToken()), 200);
        expect(Date.now() - started).toBeLessThan(JWKS_FETCH_TIMEOUT_MS / 2);
      }
    });

    it("the provider redirecting to its key set: the redirect is not followed, and a key only the set behind it holds is 503", async () => {
      provider().setAvailability("redirecting");
      // The hanging fetch's deadline passes, then each retry meets the redirect.
      const deadline = Date.now() + 3 * JWKS_FETCH_TIMEOUT_MS;
      while (Date.now() < deadline && provider().redirects().answered === 0) {
        expectProblem(await links(await provider().bearer({ alg: "ES256", rotated: true })), 503, "keys_unavailable");
        await sleep(250);
      }
      expect(provider().redirects().answered).toBeGreaterThan(0);
      expectProblem(await links(await provider().bearer({ alg: "ES256", rotated: true })), 503, "keys_unavailable");
      expect(provider().redirects().followed).toBe(0);
    });

    it("the provider back: its rotated key is accepted once fetched, and the old one still is", async () => {
      provider().setAvailability("up");
      const deadline = Date.now() + 3 * JWKS_FETCH_TIMEOUT_MS;
      let status = 0;
      while (Date.now() < deadline) {
        status = (await links(await provider().bearer({ alg: "ES256", rotated: true }))).status;
        if (status === 200) break;
        await sleep(250);
      }
      expect(status).toBe(200);
      expectStatus(await links(await cachedKeyToken()), 200);
    });
  });
}
