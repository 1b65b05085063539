// Every ratio the report prints, with its 95 % interval over the rounds (bench/stats/bootstrap.ts):
// the app's KV hit over the same target's bare KV get, taken round by round (the two ran in turns
// within each round, so a round's ratio is fair), and each target's KV hit over Deno's (measured
// at different moments: each side's rounds resampled on its own).
import { median } from "../../dev/support/stats.ts";
import { medianInterval, ratioInterval } from "../stats/bootstrap.ts";
import type { OperationName } from "./operations.ts";
import type { Summary } from "./summary.ts";

export interface Measurement {
  target: string;
  operation: OperationName;
}

export interface IntervalRatio {
  label: string;
  numerator: Measurement;
  denominator: Measurement;
  median: number;
  low: number;
  high: number;
}

const roundP50s = (summary: Summary) => summary.rounds.map((r) => r.p50).filter(Number.isFinite);

function overBaseline(hit: Summary, bare: Summary): IntervalRatio | [] {
  const perRound = hit.rounds.flatMap(({ round, p50 }) => {
    const ratio = p50 / (bare.rounds.find((r) => r.round === round)?.p50 ?? Number.NaN);
    return Number.isFinite(ratio) ? [ratio] : [];
  });
  if (perRound.length === 0) return [];
  return {
    label: `${hit.target}: KV-hit p50 / bare KV get p50`,
    numerator: { target: hit.target, operation: hit.operation },
    denominator: { target: bare.target, operation: bare.operation },
    median: median(perRound),
    ...medianInterval(perRound),
  };
}

function overOther(hit: Summary, other: Summary): IntervalRatio | [] {
  const [numerator, denominator] = [roundP50s(hit), roundP50s(other)];
  if (numerator.length === 0 || denominator.length === 0) return [];
  return {
    label: `${hit.target}: KV-hit p50 / ${other.target}'s`,
    numerator: { target: hit.target, operation: hit.operation },
    denominator: { target: other.target, operation: other.operation },
    median: median(numerator) / median(denominator),
    ...ratioInterval(numerator, denominator),
  };
}

export function intervalRatios(summaries: readonly Summary[]): IntervalRatio[] {
  const find = (target: string, operation: OperationName) =>
    summaries.find((s) => s.target === target && s.operation === operation && s.requests > 0);
  const targets = [...new Set(summaries.map((s) => s.target))];
  const deno = find("deno", "link-hit");
  return targets.flatMap((target) => {
    const hit = find(target, "link-hit");
    const bare = find(target, "kv-baseline");
    if (!hit) return [];
    return [
      ...(bare ? [overBaseline(hit, bare)].flat() : []),
      ...(deno && target !== "deno" ? [overOther(hit, deno)].flat() : []),
    ];
  });
}
