// One run over its targets, wherever they are: the measured rounds, then cross-edge staleness
// between every pair, then the cold starts, every request granted by the run's budget.
// `afterRounds` runs between the rounds and the rest (the clean-up on deployments: a user of a
// run with one identity can link the staleness probe's account only once its own is unlinked).
import { progress } from "../lib/cli.ts";
import { budgetedFetch } from "./budget.ts";
import { type ColdStarts, measureColdStarts } from "./cold.ts";
import { BENCH_PHASES } from "./plan.ts";
import { prepareTargets, runRounds, type Session, type Target } from "./rounds.ts";
import { measureStaleness, type PairStaleness } from "./staleness.ts";
import type { Measured } from "./summary.ts";

export interface Measurements {
  measured: Measured[];
  staleness: PairStaleness[];
  cold: ColdStarts[];
}

export interface RunExtent {
  /** Pairs whose staleness is measured at once. */
  stalenessLanes: number;
  pollMs: number;
  timeoutMs: number;
}

export interface MeasuredSession extends Session {
  opts: Session["opts"] & { staleness: number; cold: number; idleSeconds: number };
}

export async function measureRun(
  session: MeasuredSession,
  targets: readonly Target[],
  extent: RunExtent,
  afterRounds: () => Promise<void> = async () => {},
): Promise<Measurements> {
  const { opts, tokens, tenant, budget } = session;
  const send = budgetedFetch(budget);
  const clock = opts.clock;
  if (opts.warmup > 0) clock?.begin(BENCH_PHASES.warmup);
  await prepareTargets(session, targets);
  clock?.begin(BENCH_PHASES.rounds);
  const measured = await runRounds(session, targets);
  await afterRounds();
  if (opts.staleness > 0 && targets.length > 1) clock?.begin(BENCH_PHASES.staleness);
  const staleness = await measureStaleness(targets, {
    samples: opts.staleness,
    concurrency: extent.stalenessLanes,
    tokens,
    tenant,
    fetch: send,
    pollMs: extent.pollMs,
    timeoutMs: extent.timeoutMs,
    onPair: (pair, done, total) =>
      progress(
        `staleness ${done}/${total}  ${pair.from} → ${pair.to}: ${pair.samples.length} samples${pair.error ? ` (failed: ${pair.error})` : ""}${clock?.step() ?? ""}`,
      ),
  });
  if (opts.cold > 0) clock?.begin(BENCH_PHASES.cold);
  const cold = await measureColdStarts(targets, {
    count: opts.cold,
    idleSeconds: opts.idleSeconds,
    tokens,
    tenant,
    fetch: send,
    onPause: (i) => progress(`cold ${i + 1}/${opts.cold}: every target idle for ${opts.idleSeconds} s`),
    onDone: (i) => progress(`cold ${i + 1}/${opts.cold}: first requests sent${clock?.step() ?? ""}`),
  });
  return { measured, staleness, cold };
}
