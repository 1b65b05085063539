// From measured phases to the per target × operation summary, and its tables.

import { median, percentile, range } from "../../dev/support/stats.ts";
import { fixed, markdownTable, textTable } from "../lib/format.ts";
import { medianInterval } from "../stats/bootstrap.ts";
import { describePercentile, latencyPercentiles } from "../stats/percentiles.ts";
import { reportedP50 } from "./chart.ts";
import { type OperationName, operations } from "./operations.ts";
import { intervalRatios } from "./ratios.ts";
import { splitOf } from "./split.ts";
import type { Measured, Summary, TargetStatus } from "./summary.ts";
import { describeKvCounts, type Usage } from "./usage-probe.ts";

export function summarize(
  measured: readonly Measured[],
  usage: Partial<Record<OperationName, Usage | string>>,
): Summary[] {
  const groups = new Map<string, Measured[]>();
  for (const m of measured)
    groups.set(`${m.target}|${m.operation}`, [...(groups.get(`${m.target}|${m.operation}`) ?? []), m]);
  return [...groups.values()].map((phases) => {
    const { target, operation } = phases[0]!;
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
      target,
      operation,
      label: operations[operation].label,
      requests: latencies.length,
      rounds,
      perSecond: { median: median(rates), ...range(rates) },
      latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99) },
      p50Range: range(rounds.map((r) => r.p50)),
      percentiles: latencyPercentiles(latencies),
      p50Interval: medianInterval(rounds.map((r) => r.p50).filter(Number.isFinite)),
      late: phases.reduce((sum, m) => sum + (m.result.late ?? 0), 0),
      errors: Object.values(errorKinds).reduce((sum, n) => sum + n, 0),
      errorKinds,
      roundTripsPerRequest: latencies.length
        ? phases.reduce((sum, m) => sum + m.statements, 0) / latencies.length
        : Number.NaN,
      designRoundTrips: operations[operation].roundTrips,
      ...usageOf(usage[operation]),
      split: splitOf(phases.flatMap((m) => m.result.timings)),
    };
  });
}

function usageOf(usage: Usage | string | undefined): Pick<Summary, "kvPerRequest" | "bytesOutPerRequest"> {
  if (typeof usage === "object") return { kvPerRequest: usage.kv, bytesOutPerRequest: usage.bytesOut };
  return { kvPerRequest: usage ?? null, bytesOutPerRequest: null };
}

const HEADER = [
  "target",
  "operation",
  "req/s median (min–max)",
  "p50 ms [95 % interval]",
  "p90 ms",
  "p99 ms",
  "p99.9 ms",
  "errors",
  "DB round trips/req (goal)",
  "KV ops/req",
];

function rows(summaries: readonly Summary[], statuses: readonly TargetStatus[]): string[][] {
  const table = summaries.map((s) => [
    s.target,
    s.label,
    `${fixed(s.perSecond.median, 0)} (${fixed(s.perSecond.min, 0)}–${fixed(s.perSecond.max, 0)})`,
    `${fixed(reportedP50(s), 1)} [${fixed(s.p50Interval.low, 1)}–${fixed(s.p50Interval.high, 1)}]`,
    ...[90, 99, 99.9].map((p) => describePercentile(s.percentiles.find((q) => q.p === p))),
    `${s.errors}/${s.requests}`,
    `${fixed(s.roundTripsPerRequest, 2)} (${s.designRoundTrips})`,
    describeKvCounts(s.kvPerRequest ?? undefined),
  ]);
  for (const status of statuses.filter((s) => !s.available))
    table.push([status.target, "unavailable (see below)", ...HEADER.slice(2).map(() => "")]);
  return table;
}

/** Why a target did not run, and which requests did not get the expected answer. */
export function notes(summaries: readonly Summary[], statuses: readonly TargetStatus[]): string[] {
  return [
    ...statuses.filter((s) => !s.available).map((s) => `${s.target} unavailable: ${s.reason ?? "unknown"}`),
    ...summaries
      .filter((s) => s.errors > 0)
      .map(
        (s) =>
          `${s.target} ${s.label} errors: ${Object.entries(s.errorKinds)
            .map(([kind, n]) => `${n}× ${kind}`)
            .join(", ")}`,
      ),
  ];
}

interface Ratio {
  target: string;
  p50: number;
  overP50: number;
  ratio: number;
}

interface RoundRatio extends Omit<Ratio, "target"> {
  round: number;
}

/** Over the bare KV get: `ratio` is the median of the rounds' own ratios, `min`–`max` their spread. */
export interface BaselineRatio extends Ratio {
  min: number;
  max: number;
  rounds: RoundRatio[];
}

/**
 * The app's KV-hit p50 over the same target's bare KV get (bench/load/goals.ts: what the app adds to
 * the store), taken within each round, where the two ran in turns (bench/load/rounds.ts): over
 * pooled rounds, a busy moment of the machine that fell on one of them moved it by a third from
 * run to run. And each target's KV-hit p50 over Deno's (the Fastly host's goal: ≤ 2×).
 */
export function latencyRatios(summaries: readonly Summary[]) {
  const find = (target: string, operation: OperationName) =>
    summaries.find((s) => s.target === target && s.operation === operation && s.requests > 0);
  const targets = [...new Set(summaries.map((s) => s.target))];
  const ratio = (target: string, over: number | undefined): Ratio[] => {
    const hit = find(target, "link-hit")?.latencyMs.p50;
    return hit === undefined || over === undefined ? [] : [{ target, p50: hit, overP50: over, ratio: hit / over }];
  };
  const kvHitOverBaseline = targets.flatMap((target): BaselineRatio[] => {
    const hit = find(target, "link-hit");
    const bare = find(target, "kv-baseline");
    const rounds = (hit?.rounds ?? []).flatMap(({ round, p50 }) => {
      const overP50 = bare?.rounds.find((r) => r.round === round)?.p50 ?? Number.NaN;
      return Number.isNaN(p50 / overP50) ? [] : [{ round, p50, overP50, ratio: p50 / overP50 }];
    });
    if (!hit || !bare || rounds.length === 0) return [];
    const ratios = rounds.map((r) => r.ratio);
    const pooled = { target, p50: hit.latencyMs.p50, overP50: bare.latencyMs.p50 };
    return [{ ...pooled, ratio: median(ratios), ...range(ratios), rounds }];
  });
  const deno = find("deno", "link-hit")?.latencyMs.p50;
  const kvHitOverDeno = targets.filter((target) => target !== "deno").flatMap((target) => ratio(target, deno));
  const ratios = intervalRatios(summaries);
  const notes = ratios.map(
    (r) => `${r.label}: ${fixed(r.median, 2)}× [95 % interval ${fixed(r.low, 2)}–${fixed(r.high, 2)}×]`,
  );
  return { kvHitOverBaseline, kvHitOverDeno, ratios, notes };
}

export const benchText = (summaries: readonly Summary[], statuses: readonly TargetStatus[]) =>
  textTable(HEADER, rows(summaries, statuses));

export const benchMarkdown = (summaries: readonly Summary[], statuses: readonly TargetStatus[]) =>
  markdownTable(HEADER, rows(summaries, statuses));
