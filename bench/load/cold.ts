// Cold starts: the first request after a pause, per target (--cold N --idle SECONDS). Every
// target idles together, then each gets one signed-in request (GET /v1/me/links: token
// verification and one database round trip), timed and split like the warm ones but reported
// apart, since a platform may have evicted the instance, or kept it.

import { type TimedAnswer, timedAnswer } from "../../dev/support/server-timing.ts";
import { percentile } from "../../dev/support/stats.ts";
import { fixed, markdownTable, textTable } from "../lib/format.ts";
import type { TokenSource } from "../lib/tokens.ts";
import type { Target } from "./rounds.ts";

export interface ColdStarts {
  target: string;
  idleSeconds: number;
  /** Client time of each first request, in ms. */
  samples: number[];
  timings: TimedAnswer[];
  errors: string[];
}

export interface ColdOptions {
  count: number;
  idleSeconds: number;
  tokens: TokenSource;
  tenant: string;
  fetch: typeof fetch;
  /** Called before each pause (`index` from 0) and after its first requests (`done`). */
  onPause?: (index: number) => void;
  onDone?: (index: number) => void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function measureColdStarts(targets: readonly Target[], options: ColdOptions): Promise<ColdStarts[]> {
  if (options.count === 0) return [];
  const results = targets.map((t) => ({
    target: t.name,
    idleSeconds: options.idleSeconds,
    samples: [] as number[],
    timings: [] as TimedAnswer[],
    errors: [] as string[],
  }));
  const authorization = `Bearer ${await options.tokens.token({ sub: "bench-cold", tid: options.tenant })}`;
  for (let i = 0; i < options.count; i++) {
    options.onPause?.(i);
    await pause(options.idleSeconds * 1000);
    for (const [index, target] of targets.entries()) {
      const result = results[index]!;
      const sent = performance.now();
      try {
        const response = await options.fetch(new URL("/v1/me/links", target.url), { headers: { authorization } });
        await response.arrayBuffer();
        const client = performance.now() - sent;
        if (response.status !== 200) result.errors.push(`HTTP ${response.status}`);
        result.samples.push(client);
        const timing = timedAnswer(response.headers.get("server-timing"), client);
        if (timing) result.timings.push(timing);
      } catch (error) {
        result.errors.push(error instanceof Error ? error.message : String(error));
      }
    }
    options.onDone?.(i);
  }
  return results;
}

export const COLD_HEADER = [
  "target",
  "idle s",
  "first requests",
  "p50 ms",
  "max ms",
  "edge (total) mean ms",
  "network mean ms",
  "errors",
];

export function coldRows(cold: readonly ColdStarts[]): string[][] {
  const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN);
  return cold.map((c) => [
    c.target,
    String(c.idleSeconds),
    String(c.samples.length),
    fixed(percentile(c.samples, 50), 1),
    fixed(c.samples.length ? Math.max(...c.samples) : Number.NaN, 1),
    fixed(mean(c.timings.map((t) => t.total)), 1),
    fixed(mean(c.timings.map((t) => t.client - t.total)), 1),
    c.errors.length ? `${c.errors.length} (${c.errors[0]})` : "0",
  ]);
}

const TITLE = "Cold starts: the first request after a pause (apart from the warm figures above)";

export const coldText = (cold: readonly ColdStarts[]) =>
  cold.length ? `\n${TITLE}\n${textTable(COLD_HEADER, coldRows(cold))}` : "";
export const coldMarkdown = (cold: readonly ColdStarts[]) =>
  cold.length ? `### ${TITLE}\n\n${markdownTable(COLD_HEADER, coldRows(cold))}\n` : "";
