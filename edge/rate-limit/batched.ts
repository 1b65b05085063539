import type { RateLimitCount, RateLimiter, RateLimitPolicy } from "../../core/ports/rate-limit.ts";

/** A counter of one key under one quota in one clock-aligned window. */
export interface CounterId {
  policy: string;
  window: number;
  key: string;
}

/** Counters several instances share (Deno KV): added to in bulk, read back in bulk. */
export interface SharedCounters {
  /**
   * Adds each `by` to its counter. A counter is kept at least through the window after its own
   * (an instance whose clock is late still adds to it and reads it); the store deletes older
   * ones. A store that adds in several commits throws a PartialAdd naming how many additions
   * went in first.
   */
  add(additions: readonly { counter: CounterId; by: number }[]): Promise<void>;
  /** Each counter's total, in order (0 for one never added to). */
  read(counters: readonly CounterId[]): Promise<number[]>;
}

/** An add that failed after its first `added` additions were committed: those are not to be sent again. */
export class PartialAdd extends Error {
  constructor(
    readonly added: number,
    options: { cause: unknown },
  ) {
    super(`only the first ${added} additions were added`, options);
  }
}

const addedBefore = (error: unknown) => (error instanceof PartialAdd ? error.added : 0);

/** Runs `work` once after `ms`; what it returns cancels it. */
export type Schedule = (work: () => void, ms: number) => () => void;

const timer: Schedule = (work, ms) => {
  const id = setTimeout(work, ms);
  return () => clearTimeout(id);
};

export interface BatchedOptions {
  /** How often this instance adds its counts to the shared ones and reads their totals back. */
  intervalMs: number;
  now?: () => number;
  schedule?: Schedule;
}

/** One key's count here: the shared total last read, and what this instance admitted since. */
interface Tally {
  counter: CounterId;
  /** The shared total at the last read, this instance's additions until then included. */
  known: number;
  /** Admitted here, not yet added to the shared counter. */
  pending: number;
  /** Admitted here, being added now. */
  sending: number;
}

export interface BatchedRateLimiter extends RateLimiter {
  /** Adds what is pending and reads the totals back now (at a graceful stop, in tests). */
  flush(): Promise<void>;
}

/**
 * The rate-limit port over counters shared by several instances, deciding from what this instance
 * already holds: the shared total as last read plus what it admitted since. No request waits on
 * the store. What was admitted is added to the shared counters in one batch, and their totals
 * read back, at most once per interval and only while there is something to add. An instance
 * thus learns of the others' requests up to about two intervals late: the bound on excess that
 * docs/limits.md states. A refused request is not counted.
 */
export function createBatchedRateLimiter(shared: SharedCounters, options: BatchedOptions): BatchedRateLimiter {
  const { intervalMs, now = Date.now, schedule = timer } = options;
  const windows = new Map<string, { index: number; tallies: Map<string, Tally> }>();
  let cancel: (() => void) | undefined;
  let syncing: Promise<void> | undefined;
  let lastSync = Number.NEGATIVE_INFINITY;

  function tallyOf(policy: RateLimitPolicy, key: string, index: number): Tally {
    let window = windows.get(policy.name);
    // A turned window's counts no longer decide anything: dropped, pending ones included.
    if (window?.index !== index) windows.set(policy.name, (window = { index, tallies: new Map() }));
    let tally = window.tallies.get(key);
    if (!tally) {
      tally = { counter: { policy: policy.name, window: index, key }, known: 0, pending: 0, sending: 0 };
      window.tallies.set(key, tally);
    }
    return tally;
  }

  async function sync(): Promise<void> {
    cancel = undefined;
    lastSync = now();
    const batch = tallies().filter((t) => t.pending > 0);
    for (const tally of batch) [tally.sending, tally.pending] = [tally.pending, 0];
    try {
      await shared.add(batch.map((t) => ({ counter: t.counter, by: t.sending })));
    } catch (error) {
      // The store is unreachable: the counts not added wait here for the next interval; those
      // committed before it failed count as sent, or the next sync would add them twice.
      const added = addedBefore(error);
      for (const tally of batch.slice(0, added)) [tally.known, tally.sending] = [tally.known + tally.sending, 0];
      for (const tally of batch.slice(added)) [tally.pending, tally.sending] = [tally.pending + tally.sending, 0];
      return;
    }
    let totals: number[] | undefined;
    try {
      totals = await shared.read(batch.map((t) => t.counter));
    } catch {}
    batch.forEach((tally, i) => {
      // Never below what this instance knows it added: a failed read leaves its own count.
      tally.known = Math.max(totals?.[i] ?? 0, tally.known + tally.sending);
      tally.sending = 0;
    });
  }

  const tallies = () => [...windows.values()].flatMap((w) => [...w.tallies.values()]);

  function runSync(): Promise<void> {
    syncing ??= sync().finally(() => {
      syncing = undefined;
      // Admitted while this one ran, or not added because the store failed: the next interval's.
      if (tallies().some((t) => t.pending > 0)) scheduleSync();
    });
    return syncing;
  }

  function scheduleSync(): void {
    if (cancel || syncing) return;
    cancel = schedule(() => void runSync(), Math.max(0, lastSync + intervalMs - now()));
  }

  return {
    async count(policy, key): Promise<RateLimitCount> {
      const windowMs = policy.windowSeconds * 1000;
      const at = now();
      const index = Math.floor(at / windowMs);
      const tally = tallyOf(policy, key, index);
      const resetSeconds = Math.ceil(((index + 1) * windowMs - at) / 1000);
      const used = tally.known + tally.sending + tally.pending;
      if (used >= policy.limit) return { allowed: false, remaining: 0, resetSeconds };
      tally.pending++;
      scheduleSync();
      return { allowed: true, remaining: policy.limit - used - 1, resetSeconds };
    },
    async flush() {
      await syncing;
      // Only now: a running sync schedules the next one as it ends, for what was admitted meanwhile.
      cancel?.();
      cancel = undefined;
      await runSync();
    },
  };
}
