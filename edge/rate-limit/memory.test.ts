import { describe, expect, it } from "vitest";
import { createMemoryRateLimiter } from "./memory.ts";

const policy = { name: "p", limit: 2, windowSeconds: 60 };

describe("the memory rate limiter", () => {
  it("counts each key in clock-aligned windows and starts anew when one turns", async () => {
    let now = 120_000 + 59_500;
    const limiter = createMemoryRateLimiter(() => now);
    expect(await limiter.count(policy, "a")).toEqual({ allowed: true, remaining: 1, resetSeconds: 1 });
    expect(await limiter.count(policy, "a")).toEqual({ allowed: true, remaining: 0, resetSeconds: 1 });
    expect(await limiter.count(policy, "a")).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });
    expect((await limiter.count(policy, "b")).allowed).toBe(true);
    expect((await limiter.count({ ...policy, name: "q" }, "a")).allowed).toBe(true);
    now += 500;
    expect(await limiter.count(policy, "a")).toEqual({ allowed: true, remaining: 1, resetSeconds: 60 });
  });
});
