// Phases whose latencies are compared with each other (the app's KV hit over the bare KV get)
// run in slices that take turns, so a noisy neighbour lands on both alike and a ratio taken
// within the round stays fair. The same rule as the numbering race's interleaved rounds.
import type { PhaseResult } from "./phase-recorder.ts";

/** A phase's result with the statements the Neon endpoint served during it. */
export interface Sample {
  result: PhaseResult;
  statements: number;
}

/** A planned phase that can run any contiguous share of its requests. */
export interface SliceablePhase {
  requests: number;
  run(from: number, to: number, timeLimitMs: number): Promise<Sample>;
}

/**
 * Runs each phase's requests in `slices` shares, A B A B … (B A B A … on even rounds, so neither
 * always goes first), each share with its part of `timeLimitMs`; one Sample per phase, pooled.
 */
export async function runInterleaved(
  phases: readonly SliceablePhase[],
  at: { round: number; slices: number; timeLimitMs: number },
): Promise<Sample[]> {
  const order = phases.map((_, i) => (i + at.round - 1) % phases.length);
  const parts: Sample[][] = phases.map(() => []);
  const sliceLimitMs = Math.max(1, Math.round(at.timeLimitMs / at.slices));
  for (let slice = 0; slice < at.slices; slice++) {
    for (const index of order) {
      const phase = phases[index]!;
      const from = Math.round((phase.requests * slice) / at.slices);
      const to = Math.round((phase.requests * (slice + 1)) / at.slices);
      if (to > from) parts[index]!.push(await phase.run(from, to, sliceLimitMs));
    }
  }
  return parts.map(pool);
}

/** Slices of one phase as if it had run at once: time is the sum of the slices' times. */
export function pool(parts: readonly Sample[]): Sample {
  const errors: Record<string, number> = {};
  for (const { result } of parts)
    for (const [kind, n] of Object.entries(result.errors)) errors[kind] = (errors[kind] ?? 0) + n;
  return {
    result: {
      latencies: parts.flatMap((part) => part.result.latencies),
      errors,
      timings: parts.flatMap((part) => part.result.timings),
      wallMs: parts.reduce((sum, part) => sum + part.result.wallMs, 0),
      etags: parts.at(-1)?.result.etags ?? [],
      late: parts.reduce((sum, part) => sum + (part.result.late ?? 0), 0),
    },
    statements: parts.reduce((sum, part) => sum + part.statements, 0),
  };
}
