// Summaries of raw samples. Percentiles are computed from every sample (no histogram buckets),
// so p99 of 200 requests is the 198th slowest, not an interpolation between buckets.

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1]!;
}

/** The middle value; with an even count, the mean of the two middle ones. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Smallest and largest value: the spread between rounds. */
export function range(samples: readonly number[]): { min: number; max: number } {
  if (samples.length === 0) return { min: Number.NaN, max: Number.NaN };
  return { min: Math.min(...samples), max: Math.max(...samples) };
}
