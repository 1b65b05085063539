// bench.json as the HTML page reads it (html-report.ts, html-tables.ts): what a saved run holds.
import type { LatencyRow } from "./chart.ts";
import type { ColdStarts } from "./cold.ts";
import type { TargetCost } from "./cost.ts";
import type { Split } from "./split.ts";
import type { PairStaleness } from "./staleness.ts";

interface Interval {
  low: number;
  high: number;
}

/** What the page reads of a result; the optional fields are rendered where the run wrote them. */
export interface ResultRow extends LatencyRow {
  operation: string;
  requests: number;
  errors: number;
  perSecond: { median: number };
  latencyMs: { p50: number; p95: number; p99: number };
  split: Split | null;
  percentiles?: Array<{ p: number; ms: number | null; samples: number }>;
  p50Interval?: Interval;
  load?: { model: "closed"; concurrency: number } | { model: "open"; ratePerSecond: number };
}

export interface BenchJson {
  command: string;
  finishedAt: string;
  machine: { cpus: number; cpuModel: string; node: string };
  database?: string;
  targets: Array<{ target: string; available: boolean; reason?: string; platform?: string }>;
  results: ResultRow[];
  ratios?: Array<
    {
      label: string;
      numerator: { target: string; operation: string };
      denominator: { target: string; operation: string };
      median: number;
    } & Interval
  >;
  cost?: {
    table: string;
    prices: Array<{ item: string; usd: number; per: string; date: string; source: string }>;
    assumptions: string[];
    perTarget: TargetCost[];
  };
  staleness?: PairStaleness[];
  coldStarts?: ColdStarts[];
}
