// A run too small to mean anything says so: `npm run bench` and `npm run race` check what they
// were asked before they start, and the race its ratios after, and each warning goes to stderr
// and into the report, so a quick try is never read as a result.
import type { NumberingSummary } from "../race/report.ts";
import { MIN_TAIL_SAMPLES } from "../stats/percentiles.ts";

/** Rounds below which an interval over the rounds (bench/stats/bootstrap.ts) is no interval. */
export const MIN_ROUNDS = 3;
/** Requests per round below which a round's p50 rests on fewer than MIN_TAIL_SAMPLES requests at or beyond it. */
export const MIN_REQUESTS = 2 * MIN_TAIL_SAMPLES;
/** Time per strategy, scenario and round below which numbering's rate is start-up, not contention. */
export const MIN_RACE_DURATION_MS = 1_000;

export const warningLine = (warning: string) => `WARNING: ${warning}`;

/** What makes a bench run too small for its p50 intervals. */
export function benchWarnings({ requests, rounds }: { requests: number; rounds: number }): string[] {
  return [
    ...(requests < MIN_REQUESTS
      ? [
          `${requests} requests per round: a p50 needs ${MIN_REQUESTS} (--requests ${MIN_REQUESTS} or more) to rest on ${MIN_TAIL_SAMPLES} at or beyond it`,
        ]
      : []),
    ...(rounds < MIN_ROUNDS
      ? [`${rounds} round(s): the 95 % intervals need ${MIN_ROUNDS} (--rounds ${MIN_ROUNDS} or more) to mean anything`]
      : []),
  ];
}

interface RaceSettings {
  numbering: { durationMs: number };
  rounds: number;
  skipNumbering: boolean;
}

/** What makes a race's numbering comparison too short or too thin to read. */
export function raceWarnings({ numbering, rounds, skipNumbering }: RaceSettings): string[] {
  if (skipNumbering) return [];
  return [
    ...(numbering.durationMs < MIN_RACE_DURATION_MS
      ? [
          `numbering ran ${numbering.durationMs} ms per strategy and round: under ${MIN_RACE_DURATION_MS} ms (--duration) its rates are start-up, not contention`,
        ]
      : []),
    ...(rounds < MIN_ROUNDS
      ? [
          `${rounds} round(s): a ratio to the ceiling needs ${MIN_ROUNDS} (--rounds ${MIN_ROUNDS} or more) to show its spread`,
        ]
      : []),
  ];
}

/** A strategy faster than the bare single-row UPDATE it is measured against: the run measured noise. */
export function aboveCeilingWarnings(numbering: readonly NumberingSummary[]): string[] {
  return numbering
    .filter((summary) => summary.strategy !== "ceiling" && summary.ratioToCeiling > 1)
    .map(
      (summary) =>
        `${summary.strategy} (${summary.scenario}) ran at ${Math.round(summary.ratioToCeiling * 100)} % of the ceiling, ` +
        "which no strategy can beat: the run was too short or too disturbed to compare strategies",
    );
}
