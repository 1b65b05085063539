// `fastly:edge-rate-limiter` as js-compute 3.46 declares and documents it (types/edge-rate-limiter.d.ts,
// Fastly's Edge Rate Limiting docs), for the adapter's tests: Viceroy stubs the limiter (every
// check answers "not limited", every count 0), so nothing local runs the real one.
//
// Named rate counters keep per-entry counts over the last 60 seconds, looked up as a count over
// 10–60 s or as an average rate over 1, 10 or 60 s; named penalty boxes keep an entry for whole
// minutes, 1 to 60; `checkRate` increments, refuses an entry already boxed, and boxes one whose
// rate over the window exceeds the limit. One fake is one POP: every instance made from it counts
// together. Arguments outside the documented ranges throw the documented TypeError.

const RATE_WINDOWS = [1, 10, 60];
const COUNT_DURATIONS = [10, 20, 30, 40, 50, 60];
/** How far back a counter remembers: its longest window. */
const HISTORY_SECONDS = 60;

function check(ok: boolean, what: string): void {
  if (!ok) throw new TypeError(what);
}
const checkDelta = (delta: number) =>
  check(Number.isFinite(delta) && delta >= 0, "delta: a non-negative finite number");
/** Minutes, 1 to 60, truncated to whole minutes. */
function ttlMinutes(timeToLive: number): number {
  check(typeof timeToLive === "number" && timeToLive >= 1 && timeToLive <= 60, "timeToLive: 1 to 60 minutes");
  return Math.trunc(timeToLive);
}

export function fakeEdgeRateLimiter(now: () => number = Date.now) {
  /** Counter name → entry → second → count. */
  const counters = new Map<string, Map<string, Map<number, number>>>();
  /** Penalty box name → entry → when it leaves (ms). */
  const boxes = new Map<string, Map<string, number>>();
  const within = <K, V>(map: Map<K, V>, key: K, make: () => V) => map.get(key) ?? map.set(key, make()).get(key)!;

  const secondsOf = (counter: string, entry: string) => {
    const seconds = within(
      within(counters, counter, () => new Map()),
      entry,
      () => new Map<number, number>(),
    );
    const oldest = Math.floor(now() / 1000) - HISTORY_SECONDS;
    for (const second of seconds.keys()) if (second <= oldest) seconds.delete(second);
    return seconds;
  };
  /** The counts of the last `window` seconds, the current one included. */
  const sum = (counter: string, entry: string, window: number) => {
    const from = Math.floor(now() / 1000) - window;
    let total = 0;
    for (const [second, count] of secondsOf(counter, entry)) if (second > from) total += count;
    return total;
  };

  class RateCounter {
    constructor(readonly name: string) {}
    increment(entry: string, delta: number): void {
      checkDelta(delta);
      const seconds = secondsOf(this.name, entry);
      const second = Math.floor(now() / 1000);
      seconds.set(second, (seconds.get(second) ?? 0) + delta);
    }
    lookupRate(entry: string, window: 1 | 10 | 60): number {
      check(RATE_WINDOWS.includes(window), "window: 1, 10 or 60");
      return Math.floor(sum(this.name, entry, window) / window);
    }
    lookupCount(entry: string, duration: 10 | 20 | 30 | 40 | 50 | 60): number {
      check(COUNT_DURATIONS.includes(duration), "duration: 10, 20, 30, 40, 50 or 60");
      return sum(this.name, entry, duration);
    }
  }

  class PenaltyBox {
    constructor(readonly name: string) {}
    add(entry: string, timeToLive: number): void {
      within(boxes, this.name, () => new Map()).set(entry, now() + ttlMinutes(timeToLive) * 60_000);
    }
    has(entry: string): boolean {
      const until = boxes.get(this.name)?.get(entry);
      if (until === undefined) return false;
      if (until > now()) return true;
      boxes.get(this.name)!.delete(entry);
      return false;
    }
  }

  class EdgeRateLimiter {
    constructor(
      readonly rateCounter: RateCounter,
      readonly penaltyBox: PenaltyBox,
    ) {
      check(rateCounter instanceof RateCounter && penaltyBox instanceof PenaltyBox, "a RateCounter and a PenaltyBox");
    }
    checkRate(entry: string, delta: number, window: 1 | 10 | 60, limit: number, timeToLive: number): boolean {
      check(Number.isFinite(limit) && limit >= 0, "limit: a non-negative finite number");
      ttlMinutes(timeToLive);
      if (this.penaltyBox.has(entry)) return true;
      this.rateCounter.increment(entry, delta);
      if (this.rateCounter.lookupRate(entry, window) <= limit) return false;
      this.penaltyBox.add(entry, timeToLive);
      return true;
    }
  }

  return { RateCounter, PenaltyBox, EdgeRateLimiter };
}
