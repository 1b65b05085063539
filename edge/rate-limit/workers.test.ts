import { readFileSync } from "node:fs";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { DEFAULT_RATE_LIMITS, type RateLimitName } from "../../core/http/rate-limit-settings.ts";
import { SettingsError } from "../../core/settings/settings.ts";
import { createWorkersRateLimiter, WORKERS_RATE_LIMIT_BINDINGS, type WorkersRateLimit } from "./workers.ts";

const policy = { name: "caller-writes", limit: 2, windowSeconds: 60 };

describe("the Workers Rate Limiting adapter", () => {
  it("refuses what the binding refuses, and estimates what remains from this isolate's count", async () => {
    const keys: string[] = [];
    const answers = [true, true, false];
    const binding: WorkersRateLimit = {
      limit: async ({ key }) => {
        keys.push(key);
        return { success: answers.shift()! };
      },
    };
    const limiter = createWorkersRateLimiter({ RATE_LIMITER_CALLER_WRITES: binding });
    expect(await limiter.count(policy, "a")).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.count(policy, "a")).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.count(policy, "a")).toMatchObject({ allowed: false, remaining: 0 });
    expect(keys).toEqual(["a", "a", "a"]);
  });

  it("names the binding that is missing", async () => {
    const limiter = createWorkersRateLimiter({});
    await expect(limiter.count(policy, "a")).rejects.toThrow(SettingsError);
    await expect(limiter.count(policy, "a")).rejects.toThrow(/RATE_LIMITER_CALLER_WRITES/);
  });

  it("wrangler.toml declares every binding with the default quota, per minute", () => {
    const { ratelimits } = parse(readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8")) as {
      ratelimits: { name: string; namespace_id: string; simple: { limit: number; period: number } }[];
    };
    const declared = Object.fromEntries(ratelimits.map(({ name, simple }) => [name, simple]));
    for (const name of Object.keys(WORKERS_RATE_LIMIT_BINDINGS) as RateLimitName[]) {
      expect(declared[WORKERS_RATE_LIMIT_BINDINGS[name]]).toEqual({ limit: DEFAULT_RATE_LIMITS[name], period: 60 });
    }
    expect(new Set(ratelimits.map((binding) => binding.namespace_id)).size).toBe(ratelimits.length);
  });
});
