// `npm run bench -- --compare OLD.json NEW.json`: per target and operation, how the median of the
// rounds' p50 and throughput moved, with a 95 % interval from resampling each run's rounds; a
// change whose interval holds zero is "no significant difference", as Go's benchstat says it, and
// one whose whole interval lies within ± the noise threshold is "within noise", as criterion.rs
// says it: real, perhaps, but smaller than two runs of the same code differ on a shared machine.
import { median } from "../../dev/support/stats.ts";
import { InputFileError, readJsonFile } from "../lib/cli.ts";
import { fixed, textTable } from "../lib/format.ts";
import { type Interval, ratioInterval } from "./bootstrap.ts";

/** What a compare reads of each bench.json result (version 3 and later). */
export interface ComparedResult {
  target: string;
  operation: string;
  label?: string;
  rounds: { p50: number; perSecond: number }[];
}

export interface Change {
  /** Relative change of the median, new over old minus one, and its interval. */
  change: number;
  interval: Interval;
  significant: boolean;
  /** The whole interval lies within ± the noise threshold. */
  withinNoise: boolean;
}

/** Two whole runs of the same code, made one after the other here at --db-rtt, moved by up to a few per cent. */
export const DEFAULT_NOISE = 0.05;

export interface ComparedRow {
  target: string;
  operation: string;
  p50: Change;
  perSecond: Change;
}

export function changeOf(before: readonly number[], after: readonly number[], noise = DEFAULT_NOISE): Change {
  const ratio = ratioInterval(after, before);
  const interval = { low: ratio.low - 1, high: ratio.high - 1 };
  return {
    change: median(after) / median(before) - 1,
    interval,
    significant: interval.low > 0 || interval.high < 0,
    withinNoise: interval.low >= -noise && interval.high <= noise,
  };
}

export function compareResults(
  before: readonly ComparedResult[],
  after: readonly ComparedResult[],
  noise = DEFAULT_NOISE,
): ComparedRow[] {
  return after.flatMap((now) => {
    const then = before.find((r) => r.target === now.target && r.operation === now.operation);
    if (!then || then.rounds.length === 0 || now.rounds.length === 0) return [];
    const figure = (rounds: ComparedResult["rounds"], key: "p50" | "perSecond") =>
      rounds.map((round) => round[key]).filter(Number.isFinite);
    return [
      {
        target: now.target,
        operation: now.operation,
        p50: changeOf(figure(then.rounds, "p50"), figure(now.rounds, "p50"), noise),
        perSecond: changeOf(figure(then.rounds, "perSecond"), figure(now.rounds, "perSecond"), noise),
      },
    ];
  });
}

const signed = (value: number) => `${value >= 0 ? "+" : ""}${fixed(value * 100, 1)} %`;

export function describeChange(change: Change): string {
  const interval = `[${signed(change.interval.low)}, ${signed(change.interval.high)}]`;
  if (!change.significant) return `~ no significant difference ${interval}`;
  if (change.withinNoise) return `~ within noise: ${signed(change.change)} ${interval}`;
  return `${signed(change.change)} ${interval}`;
}

export function compareText(rows: readonly ComparedRow[]): string {
  return textTable(
    ["target", "operation", "p50 change [95 % interval]", "req/s change [95 % interval]"],
    rows.map((row) => [row.target, row.operation, describeChange(row.p50), describeChange(row.perSecond)]),
  );
}

async function readResults(path: string): Promise<ComparedResult[]> {
  const json = (await readJsonFile(path)) as { version?: number; results?: ComparedResult[] } | null;
  if (!Array.isArray(json?.results)) throw new InputFileError(`${path}: not a bench.json (no results)`);
  if (!json.results.every((result) => Array.isArray(result?.rounds))) {
    throw new InputFileError(`${path}: no rounds to compare (a run saved without each round's figures): run it again`);
  }
  return json.results;
}

/** Reads both runs and returns the table with a line on how to read it. */
export async function compareFiles(beforePath: string, afterPath: string, noise = DEFAULT_NOISE): Promise<string> {
  const rows = compareResults(await readResults(beforePath), await readResults(afterPath), noise);
  return (
    `${compareText(rows)}\n` +
    "Change of the median over the rounds, new against old; 95 % interval from resampling each run's rounds; " +
    `"within noise": the whole interval within ±${fixed(noise * 100, 0)} % (--noise).\n`
  );
}
