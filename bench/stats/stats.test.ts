// The bench's statistics on constructed inputs: HdrHistogram percentiles with their sample
// counts, and the seeded bootstrap intervals.
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../dev/support/seeded-random.ts";
import { medianInterval, ratioInterval } from "./bootstrap.ts";
import { type ComparedResult, compareResults, describeChange } from "./compare.ts";
import { describePercentile, latencyPercentiles, samplesBeyond } from "./percentiles.ts";

describe("percentiles", () => {
  const latencies = Array.from({ length: 1000 }, (_, i) => (1000 - i) / 10); // 100 … 0.1 ms, unsorted

  it("reads each percentile from the histogram within its 3 significant digits", () => {
    const [p50, p90, p99, p999] = latencyPercentiles(latencies);
    expect(p50!.ms).toBeCloseTo(50, 1);
    expect(p90!.ms).toBeCloseTo(90, 1);
    expect(p99!.ms).toBeCloseTo(99, 1);
    expect(p999).toEqual({ p: 99.9, ms: null, samples: 2 });
  });

  it("counts the samples at or beyond each rank and withholds thin tails", () => {
    expect(samplesBeyond(200, 50)).toBe(101);
    expect(samplesBeyond(200, 99)).toBe(3);
    expect(samplesBeyond(0, 50)).toBe(0);
    const few = latencyPercentiles([1, 2, 3], [50]);
    expect(few).toEqual([{ p: 50, ms: null, samples: 2 }]);
    expect(describePercentile(few[0])).toBe("n/a (2 samples)");
    expect(describePercentile({ p: 50, ms: 4.26, samples: 40 })).toBe("4.3");
  });
});

describe("bootstrap", () => {
  it("draws the same sequence from the same seed", () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });

  it("gives an interval around the median that holds the rounds' middle", () => {
    const interval = medianInterval([10, 11, 12, 13, 14, 15, 16]);
    expect(interval.low).toBeLessThanOrEqual(13);
    expect(interval.high).toBeGreaterThanOrEqual(13);
    expect(interval.low).toBeGreaterThanOrEqual(10);
    expect(interval.high).toBeLessThanOrEqual(16);
  });

  it("keeps 1 inside a ratio of two samples of one distribution, and out of a doubled one", () => {
    const rounds = [9.6, 10.1, 10.4, 9.9, 10.2];
    const same = ratioInterval(rounds, [10.3, 9.8, 10, 10.1, 9.7]);
    expect(same.low).toBeLessThan(1);
    expect(same.high).toBeGreaterThan(1);
    const doubled = ratioInterval(
      rounds.map((r) => r * 2),
      rounds,
    );
    expect(doubled.low).toBeGreaterThan(1.8);
    expect(doubled.high).toBeLessThan(2.2);
  });
});

describe("compare", () => {
  const result = (p50s: number[], factor = 1): ComparedResult => ({
    target: "node",
    operation: "link",
    rounds: p50s.map((p50) => ({ p50: p50 * factor, perSecond: 1000 / (p50 * factor) })),
  });
  const before = result([4.1, 3.9, 4.0, 4.2, 3.8]);

  it("says no significant difference between two runs of one distribution", () => {
    const [row] = compareResults([before], [result([4.0, 4.15, 3.85, 4.05, 3.95])]);
    expect(row!.p50.significant).toBe(false);
    expect(row!.perSecond.significant).toBe(false);
    expect(describeChange(row!.p50)).toMatch(/^~ no significant difference \[-[\d.]+ %, \+[\d.]+ %\]$/);
  });

  it("reports a slowed run's change with an interval that leaves out zero", () => {
    const [row] = compareResults([before], [result([4.1, 3.9, 4.0, 4.2, 3.8], 1.5)]);
    expect(row!.p50).toMatchObject({ change: expect.closeTo(0.5, 9), significant: true });
    expect(row!.p50.interval.low).toBeGreaterThan(0);
    expect(row!.perSecond.interval.high).toBeLessThan(0);
    expect(describeChange(row!.p50)).toMatch(/^\+50\.0 % \[\+[\d.]+ %, \+[\d.]+ %\]$/);
  });

  it("calls a change whose whole interval lies within the noise threshold within noise", () => {
    // Tight rounds, every one 2 % slower: significant, yet less than two runs of the same code differ.
    const tight = result([4.0, 4.01, 3.99, 4.02, 3.98]);
    const [row] = compareResults([tight], [result([4.0, 4.01, 3.99, 4.02, 3.98], 1.02)]);
    expect(row!.p50).toMatchObject({ significant: true, withinNoise: true });
    expect(describeChange(row!.p50)).toMatch(/^~ within noise: \+2\.0 % \[\+[\d.]+ %, \+[\d.]+ %\]$/);
    const [strict] = compareResults([tight], [result([4.0, 4.01, 3.99, 4.02, 3.98], 1.02)], 0.01);
    expect(strict!.p50.withinNoise).toBe(false);
  });

  it("compares only what both runs measured", () => {
    expect(compareResults([before], [{ ...before, operation: "link-hit" }])).toEqual([]);
  });
});
