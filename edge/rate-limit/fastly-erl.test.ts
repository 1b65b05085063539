// The adapter over a fake of `fastly:edge-rate-limiter` shaped as js-compute declares it
// (test/support/fake-fastly-erl.ts): Viceroy stubs the Edge Rate Limiter (it never refuses), so
// the refusals are proven here, and on a real Fastly service (docs/fastly.md).
import { describe, expect, it } from "vitest";
import { createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { bearer, TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { fakeEdgeRateLimiter } from "../../test/support/fake-fastly-erl.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { createFastlyRateLimiter } from "./fastly-erl.ts";

describe("the fake Edge Rate Limiter, as js-compute documents it", () => {
  it("checkRate boxes an entry whose rate over the window exceeds the limit, for whole minutes", () => {
    let now = 1_000_000;
    const { RateCounter, PenaltyBox, EdgeRateLimiter } = fakeEdgeRateLimiter(() => now);
    const limiter = new EdgeRateLimiter(new RateCounter("rc"), new PenaltyBox("pb"));
    // At most 1 request per second over 10 s (the rate rounded down, as the host call's integer):
    // the 20th within them makes it 2.
    for (let i = 0; i < 19; i++) expect(limiter.checkRate("a", 1, 10, 1, 1.9)).toBe(false);
    expect(limiter.checkRate("a", 1, 10, 1, 1.9)).toBe(true);
    expect(new PenaltyBox("pb").has("a")).toBe(true);
    now += 59_999;
    expect(new PenaltyBox("pb").has("a")).toBe(true);
    now += 1;
    expect(new PenaltyBox("pb").has("a")).toBe(false);
  });

  it("refuses what the declarations refuse, with a TypeError", () => {
    const { RateCounter, PenaltyBox, EdgeRateLimiter } = fakeEdgeRateLimiter();
    const counter = new RateCounter("rc");
    expect(() => counter.lookupRate("a", 5 as 10)).toThrow(TypeError);
    expect(() => counter.lookupCount("a", 15 as 10)).toThrow(TypeError);
    expect(() => counter.increment("a", -1)).toThrow(TypeError);
    expect(() => new PenaltyBox("pb").add("a", 61)).toThrow(TypeError);
    expect(() => new EdgeRateLimiter(counter, {} as InstanceType<typeof PenaltyBox>)).toThrow(TypeError);
  });
});

describe("the Fastly Edge Rate Limiter adapter", () => {
  it("allows a quota over a sliding minute, then boxes the key for a minute, uncounted", async () => {
    let now = 1_000_000;
    const erl = fakeEdgeRateLimiter(() => now);
    const limiter = createFastlyRateLimiter(erl);
    const policy = { name: "caller-writes", limit: 2, windowSeconds: 60 };
    expect(await limiter.count(policy, "a")).toEqual({ allowed: true, remaining: 1, resetSeconds: 60 });
    expect(await limiter.count(policy, "a")).toEqual({ allowed: true, remaining: 0, resetSeconds: 60 });
    expect(await limiter.count(policy, "a")).toEqual({ allowed: false, remaining: 0, resetSeconds: 60 });
    expect((await limiter.count(policy, "b")).allowed).toBe(true);
    now += 59_000;
    expect((await limiter.count(policy, "a")).allowed).toBe(false);
    expect(new erl.RateCounter("caller-writes").lookupCount("a", 60)).toBe(3);
    now += 1_000;
    expect((await limiter.count(policy, "a")).allowed).toBe(true);
  });

  it("in the app: past the quota, 429 rate_limited with Retry-After and the RateLimit fields", async () => {
    const noDatabase = () => Promise.reject(new Error("no database here"));
    const app = createApp({
      sql: { query: noDatabase, transaction: noDatabase },
      kv: createMemoryKv(),
      settings: parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET, RATE_LIMIT_CALLER_READS: "2" }),
      runtime: "fastly",
      logger: silentLogger,
      rateLimiter: createFastlyRateLimiter(fakeEdgeRateLimiter()),
    });
    const headers = await bearer({ sub: "alice", tid: "acme" });
    const read = () => app.request("/v1/documents", { headers });
    for (const left of [1, 0]) {
      const answer = await read();
      expect(answer.status).not.toBe(429);
      expect(answer.headers.get("ratelimit")).toContain(`"caller-reads";r=${left};t=60`);
    }
    const refused = await read();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: "rate_limited", "violated-policies": ["caller-reads"] });
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get("ratelimit-policy")).toContain('"caller-reads";q=2;w=60');
    expect(refused.headers.get("ratelimit")).toContain('"caller-reads";r=0;t=60');
  });
});
