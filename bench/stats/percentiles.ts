// Latency percentiles from an HdrHistogram (3 significant digits, recorded in microseconds), each
// with the number of samples at or beyond it: a tail figure resting on a handful of requests is
// an anecdote, so below MIN_TAIL_SAMPLES it is withheld (ms null) and shown as "n/a (k samples)".
import * as hdr from "hdr-histogram-js";
import { fixed } from "../lib/format.ts";

export const REPORTED_PERCENTILES = [50, 90, 99, 99.9] as const;

/** Fewer samples than this at or beyond a percentile: no figure for it. */
export const MIN_TAIL_SAMPLES = 10;

export interface Percentile {
  p: number;
  ms: number | null;
  /** How many samples are at or beyond the percentile's rank. */
  samples: number;
}

/** Samples at or beyond the nearest rank of p among n samples. */
export function samplesBeyond(n: number, p: number): number {
  if (n === 0) return 0;
  // Rounded first: 99.9 / 100 × 1000 is 999.0000000000001 in floating point, not 999.
  const rank = Math.min(Math.max(Math.ceil(Number(((p / 100) * n).toFixed(9))), 1), n);
  return n - rank + 1;
}

export function latencyPercentiles(
  latenciesMs: readonly number[],
  ps: readonly number[] = REPORTED_PERCENTILES,
): Percentile[] {
  const histogram = hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3 });
  try {
    for (const ms of latenciesMs) histogram.recordValue(Math.max(1, Math.round(ms * 1000)));
    return ps.map((p) => {
      const samples = samplesBeyond(latenciesMs.length, p);
      const ms = samples < MIN_TAIL_SAMPLES ? null : histogram.getValueAtPercentile(p) / 1000;
      return { p, ms, samples };
    });
  } finally {
    histogram.destroy();
  }
}

/** "12.3" or, for a withheld tail, "n/a (6 samples)". */
export function describePercentile(percentile: Percentile | undefined): string {
  if (!percentile) return "";
  return percentile.ms === null ? `n/a (${percentile.samples} samples)` : fixed(percentile.ms, 1);
}
