// From measured phases to the per runtime × operation summary, and its tables.
import { fixed, markdownTable, textTable } from "../lib/format.ts";
import { median, percentile, range } from "../lib/stats.ts";
import { describeKvCounts, type KvCounts } from "./kv-probe.ts";
import { type OperationName, operations } from "./operations.ts";
import type { PhaseResult } from "./phase.ts";

export interface RuntimeStatus {
  runtime: string;
  available: boolean;
  /** Why it could not run (launcher missing, build failing, …). */
  reason?: string;
  startMs?: number;
}

export interface Measured {
  runtime: string;
  operation: OperationName;
  round: number;
  result: PhaseResult;
  /** Statements the Neon endpoint served during the phase. */
  statements: number;
}

interface RoundFigures {
  round: number;
  requests: number;
  perSecond: number;
  p50: number;
}

export interface Summary {
  runtime: string;
  operation: OperationName;
  label: string;
  requests: number;
  rounds: RoundFigures[];
  perSecond: { median: number; min: number; max: number };
  latencyMs: { p50: number; p95: number; p99: number };
  /** p50 of each round, smallest and largest: how much the rounds disagreed. */
  p50Range: { min: number; max: number };
  errors: number;
  errorKinds: Record<string, number>;
  roundTripsPerRequest: number;
  designRoundTrips: number;
  kvPerRequest: KvCounts | string | null;
}

export function summarize(
  measured: readonly Measured[],
  kv: Partial<Record<OperationName, KvCounts | string>>,
): Summary[] {
  const groups = new Map<string, Measured[]>();
  for (const m of measured)
    groups.set(`${m.runtime}|${m.operation}`, [...(groups.get(`${m.runtime}|${m.operation}`) ?? []), m]);
  return [...groups.values()].map((phases) => {
    const { runtime, operation } = phases[0]!;
    const rounds = phases.map(({ round, result }) => ({
      round,
      requests: result.latencies.length,
      perSecond: result.latencies.length / (result.wallMs / 1000),
      p50: percentile(result.latencies, 50),
    }));
    const latencies = phases.flatMap((m) => m.result.latencies);
    const errorKinds: Record<string, number> = {};
    for (const m of phases)
      for (const [kind, n] of Object.entries(m.result.errors)) errorKinds[kind] = (errorKinds[kind] ?? 0) + n;
    const rates = rounds.map((r) => r.perSecond);
    return {
      runtime,
      operation,
      label: operations[operation].label,
      requests: latencies.length,
      rounds,
      perSecond: { median: median(rates), ...range(rates) },
      latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99) },
      p50Range: range(rounds.map((r) => r.p50)),
      errors: Object.values(errorKinds).reduce((sum, n) => sum + n, 0),
      errorKinds,
      roundTripsPerRequest: latencies.length
        ? phases.reduce((sum, m) => sum + m.statements, 0) / latencies.length
        : Number.NaN,
      designRoundTrips: operations[operation].roundTrips,
      kvPerRequest: kv[operation] ?? null,
    };
  });
}

const HEADER = [
  "runtime",
  "operation",
  "req/s median (min–max)",
  "p50 ms (rounds)",
  "p95 ms",
  "p99 ms",
  "errors",
  "DB round trips/req (goal)",
  "KV ops/req",
];

function rows(summaries: readonly Summary[], statuses: readonly RuntimeStatus[]): string[][] {
  const table = summaries.map((s) => [
    s.runtime,
    s.label,
    `${fixed(s.perSecond.median, 0)} (${fixed(s.perSecond.min, 0)}–${fixed(s.perSecond.max, 0)})`,
    `${fixed(s.latencyMs.p50, 1)} (${fixed(s.p50Range.min, 1)}–${fixed(s.p50Range.max, 1)})`,
    fixed(s.latencyMs.p95, 1),
    fixed(s.latencyMs.p99, 1),
    `${s.errors}/${s.requests}`,
    `${fixed(s.roundTripsPerRequest, 2)} (${s.designRoundTrips})`,
    describeKvCounts(s.kvPerRequest ?? undefined),
  ]);
  for (const status of statuses.filter((s) => !s.available))
    table.push([status.runtime, "unavailable (see below)", "", "", "", "", "", "", ""]);
  return table;
}

/** Why a runtime did not run, and which requests did not get the expected answer. */
export function notes(summaries: readonly Summary[], statuses: readonly RuntimeStatus[]): string[] {
  return [
    ...statuses.filter((s) => !s.available).map((s) => `${s.runtime} unavailable: ${s.reason ?? "unknown"}`),
    ...summaries
      .filter((s) => s.errors > 0)
      .map(
        (s) =>
          `${s.runtime} ${s.label} errors: ${Object.entries(s.errorKinds)
            .map(([kind, n]) => `${n}× ${kind}`)
            .join(", ")}`,
      ),
  ];
}

interface Ratio {
  runtime: string;
  p50: number;
  overP50: number;
  ratio: number;
}

interface RoundRatio extends Omit<Ratio, "runtime"> {
  round: number;
}

/** Over the bare KV get: `ratio` is the median of the rounds' own ratios, `min`–`max` their spread. */
export interface BaselineRatio extends Ratio {
  min: number;
  max: number;
  rounds: RoundRatio[];
}

/**
 * The app's KV-hit p50 over the same runtime's bare KV get (goal ≤ 1.5×: what the app adds to
 * the store), taken within each round, where the two ran in turns (bench/load/rounds.ts): over
 * pooled rounds, a busy moment of the machine that fell on one of them moved it by a third from
 * run to run. And each runtime's KV-hit p50 over Deno's (the Fastly host's goal: ≤ 2×).
 */
export function latencyRatios(summaries: readonly Summary[]) {
  const find = (runtime: string, operation: OperationName) =>
    summaries.find((s) => s.runtime === runtime && s.operation === operation && s.requests > 0);
  const runtimes = [...new Set(summaries.map((s) => s.runtime))];
  const ratio = (runtime: string, over: number | undefined): Ratio[] => {
    const hit = find(runtime, "link-hit")?.latencyMs.p50;
    return hit === undefined || over === undefined ? [] : [{ runtime, p50: hit, overP50: over, ratio: hit / over }];
  };
  const kvHitOverBaseline = runtimes.flatMap((runtime): BaselineRatio[] => {
    const hit = find(runtime, "link-hit");
    const bare = find(runtime, "kv-baseline");
    const rounds = (hit?.rounds ?? []).flatMap(({ round, p50 }) => {
      const overP50 = bare?.rounds.find((r) => r.round === round)?.p50 ?? Number.NaN;
      return Number.isNaN(p50 / overP50) ? [] : [{ round, p50, overP50, ratio: p50 / overP50 }];
    });
    if (!hit || !bare || rounds.length === 0) return [];
    const ratios = rounds.map((r) => r.ratio);
    const pooled = { runtime, p50: hit.latencyMs.p50, overP50: bare.latencyMs.p50 };
    return [{ ...pooled, ratio: median(ratios), ...range(ratios), rounds }];
  });
  const deno = find("deno", "link-hit")?.latencyMs.p50;
  const kvHitOverDeno = runtimes.filter((runtime) => runtime !== "deno").flatMap((runtime) => ratio(runtime, deno));
  const notes = [
    ...kvHitOverBaseline.map(
      (r) =>
        `${r.runtime}: KV-hit p50 / bare KV get p50 per round (${r.rounds.length}): median ${fixed(r.ratio, 2)}×, ` +
        `min–max ${fixed(r.min, 2)}–${fixed(r.max, 2)}× (all samples: ${fixed(r.p50, 1)} ms over ${fixed(r.overP50, 1)} ms; goal ≤ 1.5×)`,
    ),
    ...kvHitOverDeno.map(
      (r) =>
        `${r.runtime}: KV-hit p50 ${fixed(r.ratio, 2)}× deno's (${fixed(r.p50, 1)} ms vs ${fixed(r.overP50, 1)} ms)`,
    ),
  ];
  return { kvHitOverBaseline, kvHitOverDeno, notes };
}

export const benchText = (summaries: readonly Summary[], statuses: readonly RuntimeStatus[]) =>
  textTable(HEADER, rows(summaries, statuses));

export const benchMarkdown = (summaries: readonly Summary[], statuses: readonly RuntimeStatus[]) =>
  markdownTable(HEADER, rows(summaries, statuses));
