// Where a run writes by default, the bounds --help states and parsing holds, and the warning a run
// too small to mean anything gives: pure checks, no run.
import { execFileSync } from "node:child_process";
import { relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { NumberingSummary } from "../race/report.ts";
import { bounds, COMMITTED_RESULTS_DIR, DEFAULT_RESULTS_DIR, UsageError, wholeNumber } from "./cli.ts";
import {
  aboveCeilingWarnings,
  benchWarnings,
  MIN_REQUESTS,
  MIN_ROUNDS,
  raceWarnings,
  warningLine,
} from "./small-run.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });

describe("where results go", () => {
  it("by default into bench/out/, which git ignores", () => {
    expect(relative(ROOT, DEFAULT_RESULTS_DIR)).toBe("bench/out");
    expect(git("check-ignore", "bench/out/bench.json").trim()).toBe("bench/out/bench.json");
  });

  it("the committed results are elsewhere, and tracked", () => {
    expect(COMMITTED_RESULTS_DIR).not.toBe(relative(ROOT, DEFAULT_RESULTS_DIR));
    expect(git("ls-files", COMMITTED_RESULTS_DIR).split("\n")).toEqual(
      expect.arrayContaining([`${COMMITTED_RESULTS_DIR}/bench.md`, `${COMMITTED_RESULTS_DIR}/race.md`]),
    );
  });
});

describe("a whole-number option's bounds", () => {
  it("are stated as --help gives them: least, greatest, default", () => {
    expect(bounds({ min: 2, max: 40, default: 8 })).toBe("(2–40, default 8)");
    expect(bounds({ min: 0, default: 3 })).toBe("(≥ 0, default 3)");
    expect(bounds({ min: 1, default: 1_000_000 })).toBe("(≥ 1, default 1,000,000)");
    expect(bounds({ min: 1 })).toBe("(≥ 1, no default)");
    expect(bounds({ min: 1, default: 200 }, "default 200; targets 50")).toBe("(≥ 1, default 200; targets 50)");
  });

  it("are held: the default when not given, the value within them, a usage error naming the option outside", () => {
    const contenders = { min: 2, max: 40, default: 8 };
    expect(wholeNumber("contenders", undefined, contenders)).toBe(8);
    expect(wholeNumber("contenders", undefined, contenders, 3)).toBe(3);
    expect(wholeNumber("contenders", "40", contenders)).toBe(40);
    for (const value of ["1", "41", "2.5", "", "eight"]) {
      expect(() => wholeNumber("contenders", value, contenders)).toThrow(
        new UsageError("--contenders must be a whole number 2–40"),
      );
    }
    expect(() => wholeNumber("rate", undefined, { min: 1 })).toThrow(UsageError);
  });
});

describe("a run too small to mean anything", () => {
  it("bench: too few requests per round for a p50, or too few rounds for an interval", () => {
    expect(benchWarnings({ requests: 200, rounds: 3 })).toEqual([]);
    expect(benchWarnings({ requests: MIN_REQUESTS, rounds: MIN_ROUNDS })).toEqual([]);
    const [requests, ...rest] = benchWarnings({ requests: MIN_REQUESTS - 1, rounds: 3 });
    expect(rest).toEqual([]);
    expect(requests).toMatch(`--requests ${MIN_REQUESTS} or more`);
    expect(benchWarnings({ requests: 200, rounds: 1 })).toEqual([expect.stringMatching(/--rounds 3 or more/)]);
    expect(benchWarnings({ requests: 5, rounds: 1 })).toHaveLength(2);
  });

  it("race: numbering too short or in too few rounds; the races alone need neither", () => {
    const settings = { numbering: { durationMs: 2_000 }, rounds: 5, skipNumbering: false };
    expect(raceWarnings(settings)).toEqual([]);
    expect(raceWarnings({ ...settings, numbering: { durationMs: 150 } })).toEqual([
      expect.stringMatching(/150 ms per strategy and round: under 1000 ms \(--duration\)/),
    ]);
    expect(raceWarnings({ ...settings, rounds: 1 })).toEqual([expect.stringMatching(/--rounds 3 or more/)]);
    expect(raceWarnings({ numbering: { durationMs: 150 }, rounds: 1, skipNumbering: true })).toEqual([]);
  });

  it("race: a strategy above the ceiling it is measured against", () => {
    const summary = (strategy: string, ratioToCeiling: number) =>
      ({ strategy, scenario: "hot tenant", ratioToCeiling }) as NumberingSummary;
    expect(aboveCeilingWarnings([summary("ceiling", 1), summary("sequence-row", 0.4)])).toEqual([]);
    expect(aboveCeilingWarnings([summary("ceiling", 1), summary("advisory-lock", 5.66)])).toEqual([
      expect.stringMatching(/^advisory-lock \(hot tenant\) ran at 566 % of the ceiling/),
    ]);
  });

  it("is one line that says it is a warning", () => {
    expect(warningLine("too small")).toBe("WARNING: too small");
  });
});
