import { describe, expect, it } from "vitest";
import { type CounterId, createBatchedRateLimiter, type SharedCounters } from "./batched.ts";

const policy = { name: "p", limit: 4, windowSeconds: 60 };

/** Shared counters in a map, recording each call: what the limiter asks of the store. */
function sharedInMemory() {
  const totals = new Map<string, number>();
  const id = (c: CounterId) => `${c.policy}/${c.window}/${c.key}`;
  const calls: string[] = [];
  let failing = false;
  const counters: SharedCounters = {
    async add(additions) {
      calls.push(`add ${additions.map((a) => `${a.counter.key}+${a.by}`).join(",")}`);
      if (failing) throw new Error("unreachable");
      for (const { counter, by } of additions) totals.set(id(counter), (totals.get(id(counter)) ?? 0) + by);
    },
    async read(list) {
      calls.push(`read ${list.map((c) => c.key).join(",")}`);
      return list.map((c) => totals.get(id(c)) ?? 0);
    },
  };
  return { counters, calls, fail: (on: boolean) => (failing = on) };
}

/** A schedule the test runs by hand, recording each delay asked for. */
function manualSchedule() {
  const due: { work: () => void; ms: number }[] = [];
  return {
    schedule: (work: () => void, ms: number) => {
      const entry = { work, ms };
      due.push(entry);
      return () => void due.splice(due.indexOf(entry), 1);
    },
    due,
    runNext: async () => {
      due.shift()?.work();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe("the batched rate limiter", () => {
  it("answers without the store, then adds a batch and reads it back once per interval", async () => {
    let now = 60_000 * 7 + 1_000;
    const shared = sharedInMemory();
    const timer = manualSchedule();
    const limiter = createBatchedRateLimiter(shared.counters, { intervalMs: 500, now: () => now, ...timer });
    await limiter.count(policy, "a");
    await limiter.count(policy, "a");
    await limiter.count(policy, "b");
    expect(shared.calls).toEqual([]);
    expect(timer.due.map((d) => d.ms)).toEqual([0]);
    await timer.runNext();
    expect(shared.calls).toEqual(["add a+2,b+1", "read a,b"]);
    now += 100;
    await limiter.count(policy, "a");
    // The next sync waits for the rest of the interval.
    expect(timer.due.map((d) => d.ms)).toEqual([400]);
  });

  it("refuses from the totals it read: another instance's counts included", async () => {
    const shared = sharedInMemory();
    const [one, two] = [1, 2].map(() =>
      createBatchedRateLimiter(shared.counters, { intervalMs: 1, now: () => 30_000, schedule: () => () => {} }),
    );
    for (let i = 0; i < 3; i++) expect((await one!.count(policy, "a")).allowed).toBe(true);
    await one!.flush();
    expect(await two!.count(policy, "a")).toMatchObject({ allowed: true, remaining: 3 });
    await two!.flush();
    expect(await two!.count(policy, "a")).toEqual({ allowed: false, remaining: 0, resetSeconds: 30 });
  });

  it("keeps its counts when the store fails, and adds them at the next sync", async () => {
    const shared = sharedInMemory();
    const timer = manualSchedule();
    const limiter = createBatchedRateLimiter(shared.counters, { intervalMs: 10, now: () => 0, ...timer });
    shared.fail(true);
    await limiter.count(policy, "a");
    await timer.runNext();
    expect(timer.due).toHaveLength(1);
    await limiter.count(policy, "a");
    shared.fail(false);
    await timer.runNext();
    expect(shared.calls).toEqual(["add a+1", "add a+2", "read a"]);
    // Nothing counted twice: two more make four, the quota, and the fifth is refused.
    await limiter.count(policy, "a");
    expect((await limiter.count(policy, "a")).remaining).toBe(0);
    expect((await limiter.count(policy, "a")).allowed).toBe(false);
  });

  it("leaves no sync scheduled once flushed while a sync was running", async () => {
    const shared = sharedInMemory();
    const timer = manualSchedule();
    const limiter = createBatchedRateLimiter(shared.counters, { intervalMs: 10, now: () => 0, ...timer });
    await limiter.count(policy, "a");
    timer.due.shift()!.work(); // the interval's sync starts, and is still adding when the stop comes
    await limiter.count(policy, "b");
    await limiter.flush();
    expect(shared.calls).toEqual(["add a+1", "read a", "add b+1", "read b"]);
    // A sync left scheduled would run again before the interval is over, past the stop.
    expect(timer.due).toEqual([]);
  });
});
