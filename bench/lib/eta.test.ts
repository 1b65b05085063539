// The time left: the current phase at the pace of its finished steps, the later ones at their
// estimates; and the bench's plan from its settings.
import { describe, expect, it } from "vitest";
import { benchPlan } from "../load/plan.ts";
import type { RunSettings } from "../load/run-settings.ts";
import { racePlan } from "../race/plan.ts";
import { duration, PhaseClock, type PlannedPhase, remainingMs } from "./eta.ts";

const plan: PlannedPhase[] = [
  { name: "rounds", estimateMs: 60_000, steps: 12 },
  { name: "staleness", estimateMs: 30_000, steps: 6 },
];

describe("remainingMs", () => {
  it("uses the estimates until a step is done", () => {
    expect(remainingMs(plan, { phase: 0, stepsDone: 0, elapsedInPhaseMs: 0 })).toBe(90_000);
    expect(remainingMs(plan, { phase: 0, stepsDone: 0, elapsedInPhaseMs: 20_000 })).toBe(70_000);
    expect(remainingMs(plan, { phase: 0, stepsDone: 0, elapsedInPhaseMs: 99_000 })).toBe(30_000);
  });

  it("times the rest of a phase at the pace of its finished steps", () => {
    // 3 of 12 steps in 30 s: 10 s a step, 9 left, then staleness's estimate.
    expect(remainingMs(plan, { phase: 0, stepsDone: 3, elapsedInPhaseMs: 30_000 })).toBe(120_000);
    expect(remainingMs(plan, { phase: 1, stepsDone: 6, elapsedInPhaseMs: 12_000 })).toBe(0);
    expect(remainingMs(plan, { phase: 2, stepsDone: 0, elapsedInPhaseMs: 0 })).toBe(0);
  });

  it("writes durations as a person reads them", () => {
    expect([duration(400), duration(45_200), duration(185_000)]).toEqual(["0 s", "45 s", "3 min 05 s"]);
  });
});

describe("PhaseClock", () => {
  it("prints the plan, each phase's start and the time left after each step", () => {
    const lines: string[] = [];
    let now = 0;
    const clock = new PhaseClock(
      plan,
      (line) => lines.push(line),
      () => now,
    );
    clock.announce();
    clock.begin("rounds");
    now = 5_000;
    const afterOne = clock.step();
    clock.begin("staleness");
    expect(lines).toEqual([
      "About 1 min 30 s in all (rounds ~1 min 00 s, staleness ~30 s)",
      "— rounds: about 1 min 30 s left",
      "— staleness: about 30 s left",
    ]);
    expect(afterOne).toBe(" · about 1 min 25 s left"); // 11 steps × 5 s + 30 s
  });
});

describe("benchPlan", () => {
  const settings = {
    requests: 200,
    concurrency: 4,
    rounds: 3,
    warmup: 20,
    operations: ["link-hit", "kv-baseline"],
    timeLimitMs: 6_000,
    staleness: 3,
    cold: 1,
    idleSeconds: 30,
    maxRequests: Number.POSITIVE_INFINITY,
    out: "/tmp",
    prices: { file: "bench/prices.json", table: [] },
  } satisfies RunSettings;

  const estimateOf = (phases: PlannedPhase[], name: string) => phases.find((phase) => phase.name === name)?.estimateMs;

  it("plans start-up, warm-up, rounds, staleness and cold starts locally, one step per target warmed, measured phase and pair", () => {
    const phases = benchPlan(settings, 4, "local");
    expect(phases.map((p) => [p.name, p.steps])).toEqual([
      ["start-up", 0],
      ["warm-up", 4],
      ["rounds", 4 * 2 * 3],
      ["staleness", 12],
      ["cold starts", 1],
    ]);
    // Warm-ups 20 × 2 ms + 300 ms, 8 times; 200 requests × 8 ms / 4 in flight + 300 ms, 24 times.
    expect(estimateOf(phases, "warm-up")).toBe(8 * 340);
    expect(estimateOf(phases, "rounds")).toBe(24 * 700);
    expect(estimateOf(phases, "staleness")).toBe(3 * 10_000); // every pair at once
  });

  it("caps a phase at the time limit and leaves out what the run does not do", () => {
    const phases = benchPlan({ ...settings, requests: 10_000, staleness: 0, cold: 0 }, 2, "targets");
    expect(phases.map((p) => p.name)).toEqual(["warm-up", "rounds"]);
    expect(estimateOf(phases, "warm-up")).toBe(4 * (20 * 20 + 300));
    expect(estimateOf(phases, "rounds")).toBe(2 * 2 * 3 * 6_300);
    expect(benchPlan({ ...settings, warmup: 0 }, 2, "targets").map((p) => p.name)).not.toContain("warm-up");
  });

  it("times an open-model phase by its rate, whatever the runtime, capped at the time limit", () => {
    const open = { ...settings, ratePerSecond: 50, staleness: 0, cold: 0 };
    for (const where of ["local", "targets"] as const) {
      const phases = benchPlan(open, 4, where);
      // 200 requests at 50 a second: 4 s (+ 300 ms), 24 times; warm-ups 20 at 50 a second: 400 ms + 300 ms, 8 times.
      expect(estimateOf(phases, "rounds")).toBe(24 * 4_300);
      expect(estimateOf(phases, "warm-up")).toBe(8 * 700);
    }
    // 200 requests at 20 a second would take 10 s: the 6 s limit stops the phase.
    const slow = benchPlan({ ...open, ratePerSecond: 20 }, 4, "targets");
    expect(estimateOf(slow, "rounds")).toBe(24 * 6_300);
    expect(estimateOf(slow, "warm-up")).toBe(8 * 1_300);
  });
});

describe("racePlan", () => {
  it("plans two variants per problem, then the numbering's warm-up and rounds", () => {
    const settings = {
      problems: ["links", "assets"],
      numbering: { durationMs: 2_000 },
      rounds: 5,
      skipNumbering: false,
    };
    expect(racePlan(settings)).toEqual([
      { name: "races", estimateMs: 4 * 2_000, steps: 4 },
      { name: "numbering", estimateMs: 4 * 300 + 5 * 2 * 4 * 2_000, steps: 10 },
    ]);
    expect(racePlan({ ...settings, skipNumbering: true }).map((p) => p.name)).toEqual(["races"]);
  });
});
