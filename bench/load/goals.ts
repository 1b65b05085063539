// The KV hit's goals, judged from one run's figures: on node, cloudflare (workerd) and deno, the
// KV-hit p50 within 1.3× the same runtime's bare KV get p50 (the median of the rounds' ratios),
// the ratio's 95 % interval ending at or below 1.5×, and the rate limiter's counting (`limit` in
// Server-Timing) within 5 % of the KV-hit p50. Fastly's figures, which no local runtime gives
// (Viceroy is not its edge), are reported beside them and not judged.
import { intervalRatios } from "./ratios.ts";
import type { Summary } from "./summary.ts";

export const GOALS = { ratio: 1.3, ratioHigh: 1.5, limitShare: 0.05 } as const;
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

/** One line per goal: `Goal node: … — 1.12× […] — met`. */
export const goalNotes = (goals: readonly Goal[]) =>
  goals.map(
    ({ target, goal, figure, met }) =>
      `Goal ${target}: ${goal}: ${figure} — ${met === null ? "reported, not judged" : met ? "met" : "NOT MET"}`,
  );
