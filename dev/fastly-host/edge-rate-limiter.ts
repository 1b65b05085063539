// Fastly's Edge Rate Limiter as the platform documents it, for the test host: named rate counters
// (per-entry counts over the last 60 seconds, looked up as a count over 10–60 s or as an average
// rate over 1, 10 or 60 s) and named penalty boxes (an entry stays for whole minutes, 1 to 60).
// `check_rate` increments, refuses an entry already in the box, and boxes one whose rate over the
// window exceeds the limit. One instance serves every guest, as one POP counts for its instances.
//
// The instance lives on the host's main thread; the guest's imports (guest/erl-imports.ts) check
// the arguments first, with the problems below, and answer Fastly's INVAL for a bad one.

const RATE_WINDOWS = [1, 10, 60];
const COUNT_DURATIONS = [10, 20, 30, 40, 50, 60];

export const rateWindowProblem = (window: number) =>
  RATE_WINDOWS.includes(window) ? undefined : `window ${window} s: 1, 10 or 60`;
export const countDurationProblem = (duration: number) =>
  COUNT_DURATIONS.includes(duration) ? undefined : `duration ${duration} s: 10, 20, 30, 40, 50 or 60`;
/** A penalty box's time to live arrives in seconds and counts in whole minutes, 1 to 60. */
export const penaltyTtlProblem = (ttlSeconds: number) => {
  const minutes = Math.floor(ttlSeconds / 60);
  return minutes >= 1 && minutes <= 60 ? undefined : `time to live ${ttlSeconds} s: 1 to 60 minutes`;
};
/** How far back a counter remembers: its longest window. */
const HISTORY_SECONDS = 60;

/** One host call of `fastly_erl`, its strings read and its arguments checked by the guest side. */
export type ErlCall =
  | {
      fn: "check_rate";
      counter: string;
      entry: string;
      delta: number;
      window: number;
      limit: number;
      box: string;
      ttl: number;
    }
  | { fn: "ratecounter_increment"; counter: string; entry: string; delta: number }
  | { fn: "ratecounter_lookup_rate"; counter: string; entry: string; window: number }
  | { fn: "ratecounter_lookup_count"; counter: string; entry: string; duration: number }
  | { fn: "penaltybox_add"; box: string; entry: string; ttl: number }
  | { fn: "penaltybox_has"; box: string; entry: string };

export class EdgeRateLimiters {
  /** Counter name → entry → per-second counts (second → count). */
  readonly #counters = new Map<string, Map<string, Map<number, number>>>();
  /** Penalty box name → entry → when it leaves (ms). */
  readonly #boxes = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The call's result as the ABI writes it (booleans as 0 or 1; 0 for none). */
  answer(call: ErlCall): number {
    switch (call.fn) {
      case "check_rate":
        return Number(
          this.checkRate(call.counter, call.entry, call.delta, call.window, call.limit, call.box, call.ttl),
        );
      case "ratecounter_increment":
        this.increment(call.counter, call.entry, call.delta);
        return 0;
      case "ratecounter_lookup_rate":
        return this.lookupRate(call.counter, call.entry, call.window);
      case "ratecounter_lookup_count":
        return this.lookupCount(call.counter, call.entry, call.duration);
      case "penaltybox_add":
        this.penaltyBoxAdd(call.box, call.entry, call.ttl);
        return 0;
      case "penaltybox_has":
        return Number(this.penaltyBoxHas(call.box, call.entry));
    }
  }

  increment(counter: string, entry: string, delta: number): void {
    const seconds = this.#seconds(counter, entry);
    const second = Math.floor(this.now() / 1000);
    seconds.set(second, (seconds.get(second) ?? 0) + delta);
  }

  lookupCount(counter: string, entry: string, duration: number): number {
    return this.#sum(counter, entry, duration);
  }

  /** Requests per second, averaged over the window, rounded down (the ABI answers a u32). */
  lookupRate(counter: string, entry: string, window: number): number {
    return Math.floor(this.#sum(counter, entry, window) / window);
  }

  /** `ttlSeconds` is truncated to whole minutes. */
  penaltyBoxAdd(box: string, entry: string, ttlSeconds: number): void {
    const minutes = Math.floor(ttlSeconds / 60);
    let entries = this.#boxes.get(box);
    if (!entries) this.#boxes.set(box, (entries = new Map()));
    entries.set(entry, this.now() + minutes * 60_000);
  }

  penaltyBoxHas(box: string, entry: string): boolean {
    const until = this.#boxes.get(box)?.get(entry);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.#boxes.get(box)?.delete(entry);
    return false;
  }

  checkRate(counter: string, entry: string, delta: number, window: number, limit: number, box: string, ttl: number) {
    if (this.penaltyBoxHas(box, entry)) return true;
    this.increment(counter, entry, delta);
    if (this.lookupRate(counter, entry, window) <= limit) return false;
    this.penaltyBoxAdd(box, entry, ttl);
    return true;
  }

  #seconds(counter: string, entry: string): Map<number, number> {
    let entries = this.#counters.get(counter);
    if (!entries) this.#counters.set(counter, (entries = new Map()));
    let seconds = entries.get(entry);
    if (!seconds) entries.set(entry, (seconds = new Map()));
    const oldest = Math.floor(this.now() / 1000) - HISTORY_SECONDS;
    for (const second of seconds.keys()) if (second <= oldest) seconds.delete(second);
    return seconds;
  }

  /** The counts of the last `window` seconds, the current one included. */
  #sum(counter: string, entry: string, window: number): number {
    const from = Math.floor(this.now() / 1000) - window;
    let sum = 0;
    for (const [second, count] of this.#seconds(counter, entry)) if (second > from) sum += count;
    return sum;
  }
}
