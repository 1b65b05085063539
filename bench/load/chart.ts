// Latency per target and operation, drawn with the bench's one bar chart: the bar is the median
// latency (p50), the whisker its 95 % interval where the run has one (else the lowest to the
// highest round's p50), the dashed tick p95.
import { median } from "../../dev/support/stats.ts";
import { type Bar, barChart } from "../lib/bar-chart.ts";
import { fixed } from "../lib/format.ts";

/** What the chart reads of a result: bench.json's `results[]`, whatever else they hold. */
export interface LatencyRow {
  target: string;
  label: string;
  latencyMs: { p50: number; p95: number };
  p50Range: { min: number; max: number };
  p50Interval?: { low: number; high: number };
  /** Each round's p50 (absent in runs saved before rounds were kept). */
  rounds?: readonly { p50: number }[];
}

/**
 * The p50 every table and chart gives: the median of the rounds' p50s, which its interval is of
 * (the p50 of all the rounds' requests pooled can lie outside that interval); the pooled p50 only
 * for runs saved without their rounds.
 */
export function reportedP50(row: Pick<LatencyRow, "latencyMs" | "rounds">): number {
  const p50s = (row.rounds ?? []).map((round) => round.p50).filter(Number.isFinite);
  return p50s.length > 0 ? median(p50s) : row.latencyMs.p50;
}

export interface TargetLabel {
  target: string;
  available: boolean;
}

function latencyBar(row: LatencyRow): Bar {
  const { p95 } = row.latencyMs;
  const p50 = reportedP50(row);
  const interval = row.p50Interval ?? { low: row.p50Range.min, high: row.p50Range.max };
  const kind = row.p50Interval ? "95 % interval" : "rounds";
  return {
    group: row.label,
    series: row.target,
    value: p50,
    ...interval,
    marker: p95,
    label: fixed(p50, 1),
    tooltip: `${row.target} · ${row.label}: p50 ${fixed(p50, 2)} ms (${kind} ${fixed(interval.low, 2)}–${fixed(interval.high, 2)}), p95 ${fixed(p95, 2)} ms`,
  };
}

export function latencyChart(
  rows: readonly LatencyRow[],
  title: string,
  statuses: readonly TargetLabel[] = [],
): string {
  const missing = statuses.filter((s) => !s.available).map((s) => s.target);
  const interval = rows.some((row) => row.p50Interval) ? "its 95 % interval" : "lowest to highest round's p50";
  return barChart({
    title,
    legend: `bar: p50 latency in ms (written under the axis), logarithmic scale · whisker: ${interval} · dashed: p95`,
    bars: rows.filter((row) => Number.isFinite(reportedP50(row))).map(latencyBar),
    scale: "log",
    tickLabel: String,
    footnote: missing.length > 0 ? `not measured (unavailable): ${missing.join(", ")}` : undefined,
  });
}
