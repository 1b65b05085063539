// Cross-edge staleness after an unlink: for every ordered pair of running runtimes (A, B), link
// through A, wait until B answers it from its KV, unlink through A, and time until B stops
// answering the old owner. The bound is LINK_SYNC_INTERVAL_SECONDS plus one drain.
import type { RunningRuntime } from "../../dev/launchers/index.ts";
import { unlinkStaleness } from "../../test/links/cross-edge.ts";
import { fixed, markdownTable, textTable } from "../lib/format.ts";
import { percentile } from "../lib/stats.ts";

interface PairStaleness {
  from: string;
  to: string;
  /** Milliseconds per sample. */
  samples: number[];
  /** Why the pair could not be measured, when it could not. */
  error?: string;
}

/** Every ordered pair, measured side by side (each its own tenant), `samples` unlinks each. */
export async function measureStaleness(
  running: readonly RunningRuntime[],
  authSecret: string,
  samples: number,
): Promise<PairStaleness[]> {
  if (samples === 0) return [];
  const pairs = running.flatMap((a) => running.filter((b) => b !== a).map((b) => [a, b] as const));
  return Promise.all(
    pairs.map(async ([a, b]) => {
      const result: PairStaleness = { from: a.runtime, to: b.runtime, samples: [] };
      try {
        for (let i = 0; i < samples; i++) {
          const edges = [
            { name: a.runtime, url: a.url },
            { name: b.runtime, url: b.url },
          ] as const;
          result.samples.push(
            await unlinkStaleness(edges[0], edges[1], { authSecret, timeoutMs: 120_000, pollMs: 100 }),
          );
        }
      } catch (error) {
        result.error = error instanceof Error ? error.message : String(error);
      }
      return result;
    }),
  );
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
