// The numbering comparison's arithmetic: ratios to the ceiling are taken within each round, so a
// round that was slow for everyone (a noisy neighbour) does not move them.
import { describe, expect, it } from "vitest";
import type { NumberingRun, StrategyName } from "./numbering.ts";
import { summarizeNumbering } from "./report.ts";

const run = (round: number, strategy: StrategyName, perSecond: number): NumberingRun => ({
  round,
  strategy,
  scenario: "hot tenant",
  allocations: perSecond,
  retries: 0,
  errors: 0,
  perSecond,
});

describe("summarizeNumbering", () => {
  // Round 2 ran on a machine three times slower: both strategies, since they take turns.
  const runs = [
    run(1, "sequence-row", 900),
    run(1, "ceiling", 1000),
    run(2, "sequence-row", 270),
    run(2, "ceiling", 300),
    run(3, "sequence-row", 1000),
    run(3, "ceiling", 1000),
  ];
  const [app, ceiling] = summarizeNumbering(runs, { "sequence-row": 0 });

  it("takes the ratio to the ceiling within each round, then its median and spread", () => {
    expect(app!.roundRatios).toEqual([0.9, 0.9, 1]);
    expect(app!.ratioToCeiling).toBe(0.9);
    expect([app!.ratioMin, app!.ratioMax]).toEqual([0.9, 1]);
    expect(app!.medianPerSecond).toBe(900);
  });

  it("keeps every round's throughput and the ceiling at exactly 1", () => {
    expect(app!.rounds).toEqual([900, 270, 1000]);
    expect(ceiling!.roundRatios).toEqual([1, 1, 1]);
    expect(app!.brokenTenants).toBe(0);
    expect(ceiling!.brokenTenants).toBeNull();
  });
});
