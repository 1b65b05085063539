// What `npm run race` expects each of its phases to take, for the time left it prints.
import type { PlannedPhase } from "../lib/eta.ts";
import { strategyNames } from "./numbering.ts";

/** One variant of one problem under its load, as long as in the committed run (bench/results/race.md). */
const VARIANT_MS = 2_000;
const SCENARIOS = 2;

export const RACE_PHASES = { races: "races", numbering: "numbering" };

export interface RacePlanSettings {
  problems: readonly string[];
  numbering: { durationMs: number };
  rounds: number;
  skipNumbering: boolean;
}

export function racePlan(opts: RacePlanSettings): PlannedPhase[] {
  const variants = opts.problems.length * 2;
  const plan: PlannedPhase[] = [{ name: RACE_PHASES.races, estimateMs: variants * VARIANT_MS, steps: variants }];
  if (opts.skipNumbering) return plan;
  // Every strategy warms up for at most 300 ms, then has its duration per scenario and round.
  const warmUpMs = strategyNames.length * Math.min(300, opts.numbering.durationMs);
  const steps = opts.rounds * SCENARIOS;
  const estimateMs = warmUpMs + steps * strategyNames.length * opts.numbering.durationMs;
  return [...plan, { name: RACE_PHASES.numbering, estimateMs, steps }];
}
