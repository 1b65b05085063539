// One run over its targets, wherever they are: the measured rounds, then cross-edge staleness
// between every pair, then the cold starts, every request granted by the run's budget.
// `afterRounds` runs between the rounds and the rest (the clean-up on deployments: a user of a
// run with one identity can link the staleness probe's account only once its own is unlinked).
import { budgetedFetch } from "./budget.ts";
import { type ColdStarts, measureColdStarts } from "./cold.ts";
import type { Measured } from "./report.ts";
import { runRounds, type Session, type Target } from "./rounds.ts";
import { measureStaleness, type PairStaleness } from "./staleness.ts";

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
  const measured = await runRounds(session, targets);
  await afterRounds();
  const staleness = await measureStaleness(targets, {
    samples: opts.staleness,
    concurrency: extent.stalenessLanes,
    tokens,
    tenant,
    fetch: send,
    pollMs: extent.pollMs,
    timeoutMs: extent.timeoutMs,
  });
  const cold = await measureColdStarts(targets, {
    count: opts.cold,
    idleSeconds: opts.idleSeconds,
    tokens,
    tenant,
    fetch: send,
  });
  return { measured, staleness, cold };
}
