// What `npm run bench` expects each of its phases to take, for the time left it prints. The
// figures follow the committed runs (bench/results): a phase on deployments is paced by the network,
// and the measured phases correct the estimate as they finish.
import { PhaseClock, type PlannedPhase } from "../lib/eta.ts";
import type { RunSettings } from "./run-settings.ts";

/** Client time of one request: on the runtimes started here, and on deployments. */
const REQUEST_MS = { local: 8, targets: 80 };
/** Planning (seeding, priming) and counting around each measured phase. */
const PHASE_OVERHEAD_MS = 300;
/** One unlink's staleness: LINK_SYNC_INTERVAL_SECONDS and a sync; about 10 s in the committed runs. */
const STALENESS_SAMPLE_MS = 10_000;
/** Starting one runtime here (workerd is the slowest, ~1.5 s; a wasm build can take longer). */
const START_MS = 3_000;

export const BENCH_PHASES = {
  start: "start-up",
  warmup: "warm-up",
  rounds: "rounds",
  staleness: "staleness",
  cold: "cold starts",
};

/**
 * One phase of `requests`, capped at its time limit. The open model sends at its rate whatever the
 * runtime's speed; the closed one is paced by the client time of a request over those in flight.
 */
function phaseMs(opts: RunSettings, requests: number, where: keyof typeof REQUEST_MS): number {
  const perRequestMs =
    opts.ratePerSecond === undefined ? REQUEST_MS[where] / opts.concurrency : 1000 / opts.ratePerSecond;
  return Math.min(opts.timeLimitMs, requests * perRequestMs);
}

export function benchPlan(opts: RunSettings, targets: number, where: keyof typeof REQUEST_MS): PlannedPhase[] {
  const operations = opts.operations.length;
  const measured = phaseMs(opts, opts.requests, where) + PHASE_OVERHEAD_MS;
  const warm = phaseMs(opts, opts.warmup, where) + PHASE_OVERHEAD_MS;
  const phases = targets * operations * opts.rounds;
  const pairs = targets * (targets - 1);
  // Locally every pair is measured at once; on deployments, `concurrency` pairs at a time.
  const lanes = where === "local" ? Math.max(pairs, 1) : opts.concurrency;
  const plan: PlannedPhase[] = [
    ...(where === "local" ? [{ name: BENCH_PHASES.start, estimateMs: targets * START_MS, steps: 0 }] : []),
    // A phase of its own, a step per target: its time is not the rounds' pace.
    ...(opts.warmup > 0
      ? [{ name: BENCH_PHASES.warmup, estimateMs: targets * operations * warm, steps: targets }]
      : []),
    { name: BENCH_PHASES.rounds, estimateMs: phases * measured, steps: phases },
  ];
  if (opts.staleness > 0 && pairs > 0) {
    const estimateMs = Math.ceil(pairs / lanes) * opts.staleness * STALENESS_SAMPLE_MS;
    plan.push({ name: BENCH_PHASES.staleness, estimateMs, steps: pairs });
  }
  if (opts.cold > 0) {
    const estimateMs = opts.cold * (opts.idleSeconds * 1000 + targets * REQUEST_MS[where]);
    plan.push({ name: BENCH_PHASES.cold, estimateMs, steps: opts.cold });
  }
  return plan;
}

/** The clock of a run, its plan printed. */
export function startBenchClock(opts: RunSettings, targets: number, where: keyof typeof REQUEST_MS): PhaseClock {
  const clock = new PhaseClock(benchPlan(opts, targets, where));
  clock.announce();
  return clock;
}
