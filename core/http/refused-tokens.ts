// A flood of bad tokens costs a signature check each (and, for an unknown kid, may ask the
// provider again): requests answered 401 count against a quota per client address
// (RATE_LIMIT_REFUSED_TOKENS, through the rate-limit port), and past it the client gets 429. An
// address found over it is refused by this instance before the token check until the window
// turns, valid tokens included: that check is what the flood would spend.
import type { Context } from "hono";
import type { AppEnv } from "../deps.ts";
import { RecentMap } from "../lib/recent-map.ts";
import type { RateLimiter, RateLimitPolicy } from "../ports/rate-limit.ts";
import { ProblemError } from "./problem.ts";
import { policyItem, remainingItem } from "./rate-limit.ts";

/** Addresses one instance remembers as over the quota; the oldest is forgotten first. */
const MAX_REMEMBERED = 10_000;

export interface RefusedTokenOptions {
  limiter: RateLimiter;
  policy: () => RateLimitPolicy;
  /** The key of the request's client (client-address.ts); undefined: unknown, not counted. */
  clientOf: (c: Context<AppEnv>) => string | undefined;
  now?: () => number;
}

/** Runs `check` (the token check) for `c`, counting its 401s against the client's quota. */
export function refusedTokenQuota({ limiter, policy, clientOf, now = Date.now }: RefusedTokenOptions) {
  const overUntil = new RecentMap<string, number>(MAX_REMEMBERED);
  return async <T>(c: Context<AppEnv>, check: () => Promise<T>): Promise<T> => {
    // The client is named only when an address is remembered or a token refused: most requests
    // need neither, and naming it parses the address.
    const known = overUntil.size > 0 ? clientOf(c) : undefined;
    const until = known === undefined ? undefined : overUntil.get(known);
    if (until !== undefined) {
      const left = until - now();
      const quota = policy();
      // Never more than a window (the clock may have stepped back since): then the limiter decides.
      if (left > 0 && left <= quota.windowSeconds * 1000) throw tooMany(quota, Math.ceil(left / 1000));
      overUntil.delete(known!);
    }
    try {
      return await check();
    } catch (error) {
      if (!(error instanceof ProblemError) || error.status !== 401) throw error;
      const client = clientOf(c);
      if (client === undefined) throw error;
      const quota = policy();
      const counted = await c.get("timed")("limit", () => limiter.count(quota, client));
      if (counted.allowed) throw error;
      overUntil.set(client, now() + counted.resetSeconds * 1000);
      throw tooMany(quota, counted.resetSeconds);
    }
  };
}

function tooMany(policy: RateLimitPolicy, resetSeconds: number): ProblemError {
  const wait = Math.max(1, resetSeconds);
  return new ProblemError(
    429,
    "rate_limited",
    `Too many requests with a refused token from this address: at most ${policy.limit} per ${policy.windowSeconds} seconds. ` +
      "Nothing was done; retry after the time Retry-After gives.",
    { "violated-policies": [policy.name] },
    {
      "ratelimit-policy": policyItem(policy),
      ratelimit: remainingItem(policy, { allowed: false, remaining: 0, resetSeconds: wait }),
      "retry-after": String(wait),
    },
  );
}
