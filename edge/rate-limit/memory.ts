import type { RateLimitCount, RateLimiter, RateLimitPolicy } from "../../core/ports/rate-limit.ts";

/**
 * The rate-limit port in this process's memory: fixed windows aligned to the clock, one count per
 * key, all of a policy's counts dropped when its window turns (so memory holds only the keys of
 * the current window). A refused request is not counted. Each process counts alone.
 */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { index: number; counts: Map<string, number> }>();
  return {
    async count(policy: RateLimitPolicy, key: string): Promise<RateLimitCount> {
      const windowMs = policy.windowSeconds * 1000;
      const at = now();
      const index = Math.floor(at / windowMs);
      let window = windows.get(policy.name);
      if (window?.index !== index) windows.set(policy.name, (window = { index, counts: new Map() }));
      const resetSeconds = Math.ceil(((index + 1) * windowMs - at) / 1000);
      const used = window.counts.get(key) ?? 0;
      if (used >= policy.limit) return { allowed: false, remaining: 0, resetSeconds };
      window.counts.set(key, used + 1);
      return { allowed: true, remaining: policy.limit - used - 1, resetSeconds };
    },
  };
}
