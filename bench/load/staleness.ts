// Cross-edge staleness after an unlink: for every ordered pair of targets over one database
// (A, B), link through A, wait until B answers it from its KV, unlink through A, and time until B
// stops answering the old owner. The bound is LINK_SYNC_INTERVAL_SECONDS plus one sync.
import { type ProbeOptions, unlinkStaleness } from "../../dev/support/cross-edge.ts";
import { percentile } from "../../dev/support/stats.ts";
import { fixed, markdownTable, textTable } from "../lib/format.ts";
import type { TokenSource } from "../lib/tokens.ts";
import type { Target } from "./rounds.ts";

export interface PairStaleness {
  from: string;
  to: string;
  /** Milliseconds per sample. */
  samples: number[];
  /** Why the pair could not be measured, when it could not. */
  error?: string;
}

export interface StalenessOptions {
  samples: number;
  /** Pairs measured at once (each has one request in flight). */
  concurrency: number;
  tokens: TokenSource;
  tenant: string;
  fetch: typeof fetch;
  pollMs: number;
  timeoutMs: number;
  /** Called as each pair is done: the phase takes tens of seconds. */
  onPair?: (pair: PairStaleness, done: number, total: number) => void;
}

/** Every ordered pair, `samples` unlinks each, at most `concurrency` pairs at a time. */
export async function measureStaleness(
  targets: readonly Target[],
  options: StalenessOptions,
): Promise<PairStaleness[]> {
  if (options.samples === 0) return [];
  const pairs = targets.flatMap((a) => targets.filter((b) => b !== a).map((b) => [a, b] as const));
  let done = 0;
  const probe: ProbeOptions = { ...options, token: (claims) => options.tokens.token(claims) };
  const measurePair = async ([a, b]: readonly [Target, Target]) => {
    const result: PairStaleness = { from: a.name, to: b.name, samples: [] };
    try {
      for (let i = 0; i < options.samples; i++) result.samples.push(await unlinkStaleness(a, b, probe));
    } catch (error) {
      result.error = error instanceof Error ? error.message : String(error);
    }
    options.onPair?.(result, ++done, pairs.length);
    return result;
  };
  // One identity links one account per provider at a time: its pairs take turns.
  const lanes = options.tokens.oneIdentity ? 1 : Math.max(1, options.concurrency);
  const results: PairStaleness[] = [];
  for (let i = 0; i < pairs.length; i += lanes)
    results.push(...(await Promise.all(pairs.slice(i, i + lanes).map(measurePair))));
  return results;
}

const HEADER = ["unlink through → read through", "p50 ms", "max ms", "samples"];

function rows(pairs: readonly PairStaleness[]): string[][] {
  return pairs.map((pair) => [
    `${pair.from} → ${pair.to}`,
    fixed(percentile(pair.samples, 50), 0),
    fixed(pair.samples.length ? Math.max(...pair.samples) : Number.NaN, 0),
    pair.error ? `${pair.samples.length} (failed: ${pair.error})` : String(pair.samples.length),
  ]);
}

const TITLE = "Cross-edge staleness after an unlink (until the other edge stops answering the old owner)";

export const stalenessText = (pairs: readonly PairStaleness[]) =>
  pairs.length ? `\n${TITLE}\n${textTable(HEADER, rows(pairs))}` : "";
export const stalenessMarkdown = (pairs: readonly PairStaleness[]) =>
  pairs.length ? `### ${TITLE}\n\n${markdownTable(HEADER, rows(pairs))}\n` : "";
