// The outside cross-check: the bench's load generator (bench/load/phase.ts on its own thread) and
// autocannon, a well-kept load generator, send the same planned requests to the same target with
// the same number of connections, in turns; their throughput and p50 must agree within 15 %.
import { median, percentile } from "../../dev/support/stats.ts";
import { fixed, textTable } from "../lib/format.ts";
import { channel, startTsWorker } from "../lib/ts-worker.ts";
import type { CannonResult, CannonRun } from "./autocannon-worker.ts";
import type { LoadGenerator } from "./load-generator.ts";
import type { Expectation, PlannedRequest } from "./request.ts";

/** How far apart the two may be, as a share of autocannon's figure. */
export const AGREEMENT = 0.15;

export interface CrossCheckPlan {
  baseUrl: string;
  requests: PlannedRequest[];
  expect: Expectation;
  concurrency: number;
  /** Turns of each client; the median of each figure is compared. */
  turns: number;
}

interface ClientFigures {
  perSecond: number;
  p50: number;
  p90: number;
  mean: number;
  failures: number;
}

export interface CrossCheck {
  bench: ClientFigures;
  autocannon: ClientFigures;
  /** bench over autocannon. */
  ratios: { perSecond: number; p50: number };
  agree: boolean;
}

const figures = (latencies: number[], wallMs: number, failures: number) => ({
  perSecond: latencies.length / (wallMs / 1000),
  p50: percentile(latencies, 50),
  p90: percentile(latencies, 90),
  mean: latencies.reduce((sum, ms) => sum + ms, 0) / latencies.length,
  failures,
});

const medianOf = (turns: ClientFigures[]): ClientFigures => ({
  perSecond: median(turns.map((t) => t.perSecond)),
  p50: median(turns.map((t) => t.p50)),
  p90: median(turns.map((t) => t.p90)),
  mean: median(turns.map((t) => t.mean)),
  failures: turns.reduce((sum, t) => sum + t.failures, 0),
});

export async function crossCheck(plan: CrossCheckPlan, load: LoadGenerator): Promise<CrossCheck> {
  const worker = startTsWorker(new URL("./autocannon-worker.ts", import.meta.url));
  const cannon = channel<CannonRun>(worker);
  const bench: ClientFigures[] = [];
  const other: ClientFigures[] = [];
  try {
    for (let turn = 0; turn < plan.turns; turn++) {
      const phase = await load.run({
        baseUrl: plan.baseUrl,
        requests: plan.requests,
        expect: plan.expect,
        concurrency: plan.concurrency,
        timeLimitMs: Number.POSITIVE_INFINITY,
        etags: [],
      });
      const errors = Object.values(phase.errors).reduce((sum, n) => sum + n, 0);
      bench.push(figures(phase.latencies, phase.wallMs, errors));
      const run = await cannon<CannonResult>({
        baseUrl: plan.baseUrl,
        requests: plan.requests,
        connections: plan.concurrency,
      });
      other.push(figures(run.latencies, run.wallMs, run.failures));
    }
  } finally {
    await worker.terminate();
  }
  return compare(medianOf(bench), medianOf(other));
}

export function compare(bench: ClientFigures, autocannon: ClientFigures): CrossCheck {
  const ratios = { perSecond: bench.perSecond / autocannon.perSecond, p50: bench.p50 / autocannon.p50 };
  const within = (ratio: number) => Math.abs(ratio - 1) <= AGREEMENT;
  const clean = bench.failures === 0 && autocannon.failures === 0;
  return { bench, autocannon, ratios, agree: clean && within(ratios.perSecond) && within(ratios.p50) };
}

export function crossCheckText(target: string, check: CrossCheck): string {
  const row = (client: string, f: ClientFigures) => [
    target,
    client,
    fixed(f.perSecond, 0),
    fixed(f.p50, 2),
    fixed(f.p90, 2),
    fixed(f.mean, 2),
    String(f.failures),
  ];
  const table = textTable(
    ["target", "client", "req/s", "p50 ms", "p90 ms", "mean ms", "failures"],
    [row("bench", check.bench), row("autocannon", check.autocannon)],
  );
  const verdict = check.agree ? "agree" : "DISAGREE";
  return `${table}\nbench / autocannon: req/s ${fixed(check.ratios.perSecond, 3)}×, p50 ${fixed(check.ratios.p50, 3)}× — ${verdict} (bound ±${AGREEMENT * 100} %)\n`;
}
