// What `npm run race` prints and writes: the violation table and the numbering throughput table.

import { median, range } from "../../dev/support/stats.ts";
import { fixed, markdownTable, percent, textTable } from "../lib/format.ts";
import { type NumberingRun, type ScenarioName, type StrategyName, strategyHow } from "./numbering.ts";
import type { ProblemResult } from "./problems.ts";

export interface NumberingSummary {
  scenario: ScenarioName;
  strategy: StrategyName;
  how: string;
  rounds: number[];
  medianPerSecond: number;
  minPerSecond: number;
  maxPerSecond: number;
  /** Median over the rounds of (throughput ÷ the ceiling's throughput in the same round). */
  ratioToCeiling: number;
  /** Each round's ratio to the ceiling, in round order: the spread. */
  roundRatios: number[];
  ratioMin: number;
  ratioMax: number;
  retriesPerAllocation: number;
  errors: number;
  /** Tenants with a gap or duplicate afterwards (null for the ceiling, which writes no document). */
  brokenTenants: number | null;
}

export function summarizeNumbering(
  runs: readonly NumberingRun[],
  violations: Partial<Record<StrategyName, number>>,
): NumberingSummary[] {
  const groups = new Map<string, NumberingRun[]>();
  for (const run of runs) {
    const key = `${run.scenario}|${run.strategy}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  const summaries = [...groups.values()].map((group) => {
    const first = group[0]!;
    const rates = group.map((run) => run.perSecond);
    const allocations = group.reduce((sum, run) => sum + run.allocations, 0);
    return {
      scenario: first.scenario,
      strategy: first.strategy,
      how: strategyHow(first.strategy),
      rounds: rates,
      medianPerSecond: median(rates),
      minPerSecond: range(rates).min,
      maxPerSecond: range(rates).max,
      ratioToCeiling: Number.NaN,
      roundRatios: [] as number[],
      ratioMin: Number.NaN,
      ratioMax: Number.NaN,
      retriesPerAllocation: allocations > 0 ? group.reduce((sum, run) => sum + run.retries, 0) / allocations : 0,
      errors: group.reduce((sum, run) => sum + run.errors, 0),
      brokenTenants: violations[first.strategy] ?? null,
    };
  });
  for (const summary of summaries) {
    const ratios = roundRatios(runs, summary.scenario, summary.strategy);
    summary.roundRatios = ratios;
    summary.ratioToCeiling = median(ratios);
    ({ min: summary.ratioMin, max: summary.ratioMax } = range(ratios));
  }
  return summaries;
}

/** The ratio to the ceiling taken within each round (same scenario), never across rounds. */
function roundRatios(runs: readonly NumberingRun[], scenario: ScenarioName, strategy: StrategyName): number[] {
  const ratios: number[] = [];
  for (const run of runs) {
    if (run.scenario !== scenario || run.strategy !== strategy) continue;
    const ceiling = runs.find(
      (other) => other.scenario === scenario && other.round === run.round && other.strategy === "ceiling",
    );
    if (ceiling && ceiling.perSecond > 0) ratios.push(run.perSecond / ceiling.perSecond);
  }
  return ratios;
}

const PROBLEM_HEADER = ["problem", "variant", "how", "requests", "done", "refused", "failed", "violations"];

function problemRows(results: readonly ProblemResult[]): string[][] {
  return results.map((r) => [
    r.problem,
    r.variant,
    r.how,
    String(r.attempts),
    String(r.succeeded),
    String(r.refused),
    String(r.failed),
    `${r.violations} ${r.violation}`,
  ]);
}

const NUMBERING_HEADER = [
  "scenario",
  "strategy",
  "numbers/s (median)",
  "rounds min–max",
  "× ceiling (median of rounds)",
  "× ceiling min–max",
  "retries/number",
  "errors",
  "gaps/dups",
];

function numberingRows(summaries: readonly NumberingSummary[]): string[][] {
  return summaries.map((s) => [
    s.scenario,
    s.strategy,
    fixed(s.medianPerSecond, 0),
    `${fixed(s.minPerSecond, 0)}–${fixed(s.maxPerSecond, 0)}`,
    percent(s.ratioToCeiling),
    `${percent(s.ratioMin)}–${percent(s.ratioMax)}`,
    fixed(s.retriesPerAllocation, 2),
    String(s.errors),
    s.brokenTenants === null ? "n/a" : String(s.brokenTenants),
  ]);
}

// A run with --skip-numbering has no numbering to show: its section is left out, not printed empty.
export function raceText(problems: readonly ProblemResult[], numbering: readonly NumberingSummary[]): string {
  const races = ["Races (same concurrent load for both variants):", textTable(PROBLEM_HEADER, problemRows(problems))];
  if (numbering.length === 0) return races.join("\n");
  return [
    ...races,
    "",
    "Numbering throughput (one round trip per number):",
    textTable(NUMBERING_HEADER, numberingRows(numbering)),
  ].join("\n");
}

export function raceMarkdown(problems: readonly ProblemResult[], numbering: readonly NumberingSummary[]): string {
  const races = [
    "#### Races: naive vs safe, same concurrent load",
    "",
    markdownTable(PROBLEM_HEADER, problemRows(problems)),
    "",
  ];
  if (numbering.length === 0) return races.join("\n");
  return [
    ...races,
    "#### Numbering throughput",
    "",
    markdownTable(NUMBERING_HEADER, numberingRows(numbering)),
    "",
  ].join("\n");
}
