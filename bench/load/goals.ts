// The KV hit's goals, judged from one run's figures: on node, cloudflare (workerd) and deno, the
// KV-hit p50 within 1.3× the same runtime's bare KV get p50 (the median of the rounds' ratios),
// the ratio's 95 % interval ending at or below 1.5×, and the rate limiter's counting (`limit` in
// Server-Timing) within 5 % of the KV-hit p50. Fastly's figures, which no local runtime gives
// (Viceroy is not its edge), are reported beside them and not judged.
import { median } from "../../dev/support/stats.ts";
import { medianInterval } from "../stats/bootstrap.ts";
import { TRACED_SUFFIX } from "./platform.ts";
import { intervalRatios } from "./ratios.ts";
import type { Summary } from "./summary.ts";

export const GOALS = { ratio: 1.3, ratioHigh: 1.5, limitShare: 0.05, tracedRatio: 1.1 } as const;
/** The runtimes judged; every other target is reported only. */
export const JUDGED_TARGETS = ["node", "cloudflare", "deno"];

export interface Goal {
  target: string;
  goal: string;
  figure: string;
  /** null: reported, not judged. */
  met: boolean | null;
}

const times = (value: number) => `${value.toFixed(2)}×`;

export function kvHitGoals(summaries: readonly Summary[]): Goal[] {
  const ratios = intervalRatios(summaries).filter((r) => r.denominator.operation === "kv-baseline");
  return [...new Set(summaries.map((s) => s.target))].flatMap((target) => {
    const judged = JUDGED_TARGETS.includes(target);
    const hit = summaries.find((s) => s.target === target && s.operation === "link-hit" && s.requests > 0);
    if (!hit) return [];
    const goals: Goal[] = [];
    const ratio = ratios.find((r) => r.numerator.target === target);
    if (ratio) {
      goals.push({
        target,
        goal: `KV-hit p50 ≤ ${GOALS.ratio}× bare KV get p50, interval's upper end ≤ ${GOALS.ratioHigh}×`,
        figure: `${times(ratio.median)} [95 % interval ${ratio.low.toFixed(2)}–${times(ratio.high)}]`,
        met: judged ? ratio.median <= GOALS.ratio && ratio.high <= GOALS.ratioHigh : null,
      });
    }
    const limitMs = hit.split?.meanMs.limit;
    if (limitMs !== undefined) {
      const share = limitMs / hit.latencyMs.p50;
      goals.push({
        target,
        goal: `limit ≤ ${GOALS.limitShare * 100} % of the KV-hit p50`,
        figure: `${limitMs.toFixed(3)} ms of ${hit.latencyMs.p50.toFixed(2)} ms (${(share * 100).toFixed(1)} %)`,
        met: judged ? share <= GOALS.limitShare : null,
      });
    }
    return goals;
  });
}

/**
 * `--otel`: each runtime's KV-hit p50 with tracing on (RUNTIME+otel, exporting to the collector)
 * over the same runtime's with it off, round by round (the two take turns within each round), the median
 * of those ratios within 1.1× (at most 10 % added).
 */
export function tracingGoals(summaries: readonly Summary[]): Goal[] {
  const hit = (target: string) =>
    summaries.find((s) => s.target === target && s.operation === "link-hit" && s.requests > 0);
  return summaries.flatMap((traced) => {
    if (traced.operation !== "link-hit" || !traced.target.endsWith(TRACED_SUFFIX)) return [];
    const target = traced.target.slice(0, -TRACED_SUFFIX.length);
    const plain = hit(target);
    if (!plain || traced.requests === 0) return [];
    const perRound = traced.rounds.flatMap(({ round, p50 }) => {
      const ratio = p50 / (plain.rounds.find((r) => r.round === round)?.p50 ?? Number.NaN);
      return Number.isFinite(ratio) ? [ratio] : [];
    });
    if (perRound.length === 0) return [];
    const ratio = median(perRound);
    const { low, high } = medianInterval(perRound);
    const p50s = `off ${plain.latencyMs.p50.toFixed(2)} ms, on ${traced.latencyMs.p50.toFixed(2)} ms`;
    // The server's own time beside it: on a busy machine the client's p50 is mostly waiting.
    const edge = (s: Summary) => s.split?.p50Ms.edge.toFixed(2);
    const served = edge(plain) && edge(traced) ? ` (Server-Timing edge p50 ${edge(plain)} → ${edge(traced)} ms)` : "";
    return [
      {
        target,
        goal: `tracing on adds ≤ ${Math.round((GOALS.tracedRatio - 1) * 100)} % to the KV-hit p50`,
        figure: `${p50s}: ${times(ratio)} [95 % interval ${low.toFixed(2)}–${times(high)}]${served}`,
        met: JUDGED_TARGETS.includes(target) ? ratio <= GOALS.tracedRatio : null,
      },
    ];
  });
}

/** One line per goal: `Goal node: … — 1.12× […] — met`. */
export const goalNotes = (goals: readonly Goal[]) =>
  goals.map(
    ({ target, goal, figure, met }) =>
      `Goal ${target}: ${goal}: ${figure} — ${met === null ? "reported, not judged" : met ? "met" : "NOT MET"}`,
  );
