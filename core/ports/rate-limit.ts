// The rate-limit port: counts a caller's or a tenant's requests in a window, with whatever the
// platform offers (Workers' Rate Limiting binding, Fastly's Edge Rate Limiter, Deno KV, memory).
// Every platform counts where it runs (a location, an instance), never across a whole deployment.

/** One quota: at most `limit` requests per `windowSeconds` for each key. */
export interface RateLimitPolicy {
  /** Its name in the RateLimit-Policy field, and the counter's name where the platform names them. */
  name: string;
  limit: number;
  windowSeconds: number;
}

/** What counting one request found. */
export interface RateLimitCount {
  allowed: boolean;
  /** Requests left in the window after this one (an estimate where the platform tells none). */
  remaining: number;
  /** Seconds until the quota is whole again (an upper bound where the platform tells none). */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one request of `key` under `policy` and answers whether it is within the quota. */
  count(policy: RateLimitPolicy, key: string): Promise<RateLimitCount>;
}

/**
 * The window every quota is counted over: Workers' binding counts over 10 or 60 seconds, Fastly's
 * rate counters over at most 60, so one minute is the longest window every platform offers.
 */
export const RATE_LIMIT_WINDOW_SECONDS = 60;
