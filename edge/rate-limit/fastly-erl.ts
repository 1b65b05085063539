import type { RateLimiter } from "../../core/ports/rate-limit.ts";

/** The part of `fastly:edge-rate-limiter` used here, handed in by the entry (the module exists only in the wasm). */
export interface FastlyEdgeRateLimiter {
  RateCounter: new (
    name: string,
  ) => {
    increment(entry: string, delta: number): void;
    lookupCount(entry: string, duration: 10 | 20 | 30 | 40 | 50 | 60): number;
  };
  PenaltyBox: new (
    name: string,
  ) => {
    add(entry: string, timeToLiveMinutes: number): void;
    has(entry: string): boolean;
  };
}

/** The shortest stay in a penalty box Fastly allows: a minute. */
const PENALTY_MINUTES = 1;

type Counters = {
  counter: InstanceType<FastlyEdgeRateLimiter["RateCounter"]>;
  box: InstanceType<FastlyEdgeRateLimiter["PenaltyBox"]>;
};

/**
 * The rate-limit port over Fastly's Edge Rate Limiter: a rate counter and a penalty box per
 * quota. A request counts one; once the counter's last 60 seconds hold more than the quota, the
 * key goes to the penalty box and every request of it is refused for a minute (the box's
 * shortest stay), uncounted. Counted per Fastly POP, approximately, as the platform counts.
 */
export function createFastlyRateLimiter(erl: FastlyEdgeRateLimiter): RateLimiter {
  // Opened on first use, during a request: Compute refuses them while the build snapshots.
  const opened = new Map<string, Counters>();
  const countersOf = (name: string): Counters => {
    let counters = opened.get(name);
    if (!counters) opened.set(name, (counters = { counter: new erl.RateCounter(name), box: new erl.PenaltyBox(name) }));
    return counters;
  };
  return {
    async count(policy, key) {
      const { counter, box } = countersOf(policy.name);
      const penalty = { allowed: false, remaining: 0, resetSeconds: PENALTY_MINUTES * 60 };
      if (box.has(key)) return penalty;
      counter.increment(key, 1);
      const used = counter.lookupCount(key, policy.windowSeconds as 60);
      if (used <= policy.limit) {
        // A sliding window: the whole quota is back once the oldest counted request is a window old.
        return { allowed: true, remaining: policy.limit - used, resetSeconds: policy.windowSeconds };
      }
      box.add(key, PENALTY_MINUTES);
      return penalty;
    },
  };
}
