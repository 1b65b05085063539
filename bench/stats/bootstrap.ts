// 95 % intervals by the percentile bootstrap over rounds, with a seeded generator so a report
// (and a test) is reproducible. Rounds, not requests, are resampled: requests within a round
// share the machine's moment, so only the rounds carry the run-to-run variation.
import { seededRandom } from "../../dev/support/seeded-random.ts";
import { median } from "../../dev/support/stats.ts";

export interface Interval {
  low: number;
  high: number;
}

const RESAMPLES = 2_000;
const SEED = 38;

function resample(values: readonly number[], random: () => number): number[] {
  return values.map(() => values[Math.floor(random() * values.length)]!);
}

/** The 2.5th and 97.5th percentiles of a statistic's resampled distribution. */
function percentileInterval(draws: number[]): Interval {
  const sorted = draws.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return { low: Number.NaN, high: Number.NaN };
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * sorted.length)))]!;
  return { low: at(0.025), high: at(0.975) };
}

/** The median of the rounds' values, and its 95 % interval. */
export function medianInterval(values: readonly number[], seed = SEED): Interval {
  if (values.length === 0) return { low: Number.NaN, high: Number.NaN };
  const random = seededRandom(seed);
  return percentileInterval(Array.from({ length: RESAMPLES }, () => median(resample(values, random))));
}

/**
 * Two measurements' ratio median(numerator) / median(denominator), each side's rounds resampled
 * on its own (runs, or targets measured at different moments, are not paired).
 */
export function ratioInterval(numerator: readonly number[], denominator: readonly number[], seed = SEED): Interval {
  if (numerator.length === 0 || denominator.length === 0) return { low: Number.NaN, high: Number.NaN };
  const random = seededRandom(seed);
  const draws = Array.from(
    { length: RESAMPLES },
    () => median(resample(numerator, random)) / median(resample(denominator, random)),
  );
  return percentileInterval(draws);
}
