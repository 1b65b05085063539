import { describe, expect, it } from "vitest";
import { countDurationProblem, EdgeRateLimiters, penaltyTtlProblem, rateWindowProblem } from "./edge-rate-limiter.ts";

function clock(start = 1_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("the test host's Edge Rate Limiter", () => {
  it("counts an entry over the last 10–60 seconds, forgetting what is older", () => {
    const time = clock();
    const erl = new EdgeRateLimiters(time.now);
    erl.increment("rc", "a", 2);
    time.advance(15_000);
    erl.increment("rc", "a", 3);
    erl.increment("rc", "b", 7);
    expect(erl.lookupCount("rc", "a", 10)).toBe(3);
    expect(erl.lookupCount("rc", "a", 20)).toBe(5);
    expect(erl.lookupCount("other", "a", 60)).toBe(0);
    time.advance(50_000);
    expect(erl.lookupCount("rc", "a", 60)).toBe(3);
    time.advance(10_000);
    expect(erl.lookupCount("rc", "a", 60)).toBe(0);
  });

  it("answers the rate as requests per second averaged over the window", () => {
    const erl = new EdgeRateLimiters(clock().now);
    erl.increment("rc", "a", 125);
    expect(erl.lookupRate("rc", "a", 1)).toBe(125);
    expect(erl.lookupRate("rc", "a", 10)).toBe(12);
    expect(erl.lookupRate("rc", "a", 60)).toBe(2);
  });

  it("keeps a penalty box entry for whole minutes", () => {
    const time = clock();
    const erl = new EdgeRateLimiters(time.now);
    erl.penaltyBoxAdd("pb", "a", 119);
    expect(erl.penaltyBoxHas("pb", "a")).toBe(true);
    expect(erl.penaltyBoxHas("pb", "b")).toBe(false);
    time.advance(59_999);
    expect(erl.penaltyBoxHas("pb", "a")).toBe(true);
    time.advance(1);
    expect(erl.penaltyBoxHas("pb", "a")).toBe(false);
  });

  it("check_rate boxes an entry over the limit and refuses it while boxed", () => {
    const time = clock();
    const erl = new EdgeRateLimiters(time.now);
    const check = () => erl.checkRate("rc", "a", 1, 1, 2, "pb", 60);
    expect([check(), check(), check()]).toEqual([false, false, true]);
    time.advance(5_000);
    expect(check()).toBe(true);
    expect(erl.lookupCount("rc", "a", 10)).toBe(3); // a boxed entry is not counted
    time.advance(55_000);
    expect(check()).toBe(false);
  });

  it("refuses the windows, durations and times to live Fastly does not offer", () => {
    expect([1, 10, 60].map(rateWindowProblem)).toEqual([undefined, undefined, undefined]);
    expect(rateWindowProblem(30)).toMatch(/1, 10 or 60/);
    expect(countDurationProblem(60)).toBeUndefined();
    expect(countDurationProblem(15)).toMatch(/10, 20/);
    expect(penaltyTtlProblem(60)).toBeUndefined();
    expect(penaltyTtlProblem(3600)).toBeUndefined();
    expect(penaltyTtlProblem(59)).toMatch(/1 to 60 minutes/);
    expect(penaltyTtlProblem(3660)).toMatch(/1 to 60 minutes/);
  });
});
