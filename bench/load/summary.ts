// What the bench figures per target × operation, and what it knows of each target: the shapes
// report.ts computes and every table, chart, goal and cost reads.
import type { Interval } from "../stats/bootstrap.ts";
import type { Percentile } from "../stats/percentiles.ts";
import type { OperationName } from "./operations.ts";
import type { PhaseResult } from "./phase-recorder.ts";
import type { Split } from "./split.ts";
import type { KvCounts } from "./usage-probe.ts";

export interface TargetStatus {
  target: string;
  available: boolean;
  /** What the target runs on (bench/load/platform.ts): this machine's runtimes, Viceroy, or a deployment's platform. */
  platform?: string;
  /** Whose prices its cost is figured at, when not its platform's (a runtime started here). */
  billedAs?: string;
  /** Why it could not run (launcher missing, build failing, …). */
  reason?: string;
  startMs?: number;
  /** What a deployment's /healthz names, and whether its answers carry Server-Timing. */
  runtime?: string;
  serverTiming?: boolean;
}

export interface Measured {
  target: string;
  operation: OperationName;
  round: number;
  result: PhaseResult;
  /** Statements the Neon endpoint served during the phase. */
  statements: number;
}

export interface RoundFigures {
  round: number;
  requests: number;
  perSecond: number;
  p50: number;
}

export interface Summary {
  target: string;
  operation: OperationName;
  label: string;
  requests: number;
  rounds: RoundFigures[];
  perSecond: { median: number; min: number; max: number };
  latencyMs: { p50: number; p95: number; p99: number };
  /** p50 of each round, smallest and largest: how much the rounds disagreed. */
  p50Range: { min: number; max: number };
  /** From the HdrHistogram of every round's samples; thin tails withheld (bench/stats/percentiles.ts). */
  percentiles: Percentile[];
  /** 95 % interval of the median of the rounds' p50s. */
  p50Interval: Interval;
  /** Open model: requests sent more than a millisecond after they were due. */
  late: number;
  errors: number;
  errorKinds: Record<string, number>;
  roundTripsPerRequest: number;
  designRoundTrips: number;
  kvPerRequest: KvCounts | string | null;
  /** The answer's bytes as the app writes them (bench/load/usage-probe.ts); null where not probed. */
  bytesOutPerRequest: number | null;
  /** Where the time went, from the answers' Server-Timing; null without it. */
  split: Split | null;
}
