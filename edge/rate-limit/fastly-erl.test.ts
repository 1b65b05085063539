// The adapter over the test host's Edge Rate Limiter, which implements Fastly's as documented.
import { describe, expect, it } from "vitest";
import { EdgeRateLimiters } from "../../dev/fastly-host/edge-rate-limiter.ts";
import { createFastlyRateLimiter, type FastlyEdgeRateLimiter } from "./fastly-erl.ts";

function erlOver(erl: EdgeRateLimiters): FastlyEdgeRateLimiter {
  return {
    RateCounter: class {
      constructor(readonly name: string) {}
      increment = (entry: string, delta: number) => erl.increment(this.name, entry, delta);
      lookupCount = (entry: string, duration: number) => erl.lookupCount(this.name, entry, duration);
    },
    PenaltyBox: class {
      constructor(readonly name: string) {}
      // Compute's API takes minutes, its host call seconds.
      add = (entry: string, minutes: number) => erl.penaltyBoxAdd(this.name, entry, minutes * 60);
      has = (entry: string) => erl.penaltyBoxHas(this.name, entry);
    },
  };
}

describe("the Fastly Edge Rate Limiter adapter", () => {
  it("allows a quota over a sliding minute, then boxes the key for a minute, uncounted", async () => {
    let now = 1_000_000;
    const erl = new EdgeRateLimiters(() => now);
    const limiter = createFastlyRateLimiter(erlOver(erl));
    const policy = { name: "caller-writes", limit: 2, windowSeconds: 60 };
    expect(await limiter.count(policy, "a")).toEqual({ allowed: true, remaining: 1, resetSeconds: 60 });
    expect(await limiter.count(policy, "a")).toEqual({ allowed: true, remaining: 0, resetSeconds: 60 });
    expect(await limiter.count(policy, "a")).toEqual({ allowed: false, remaining: 0, resetSeconds: 60 });
    expect((await limiter.count(policy, "b")).allowed).toBe(true);
    now += 59_000;
    expect((await limiter.count(policy, "a")).allowed).toBe(false);
    expect(erl.lookupCount("caller-writes", "a", 60)).toBe(3);
    now += 1_000;
    expect((await limiter.count(policy, "a")).allowed).toBe(true);
  });
});
