import type { Sql } from "../ports/sql.ts";

/** How old a readiness answer may be: a flood of probes costs one round trip a second. */
export const READINESS_MAX_AGE_MS = 1000;

/**
 * This instance's readiness check: whether Postgres answers, asked at most once per `maxAgeMs`.
 * `/readyz` needs no token, so without this every anonymous probe would be a database round trip
 * (a Neon compute kept awake, a Workers subrequest, a Compute backend call). Callers within the
 * age share one check, the one in flight included, and its answer, failure included.
 */
export function recentReadiness(maxAgeMs = READINESS_MAX_AGE_MS, now: () => number = Date.now) {
  let last: { startedAt: number; ready: Promise<boolean> } | undefined;
  return (sql: Sql): Promise<boolean> => {
    const at = now();
    if (!last || at - last.startedAt >= maxAgeMs || at < last.startedAt) {
      last = {
        startedAt: at,
        ready: sql.query("SELECT 1 AS ok").then(
          () => true,
          () => false,
        ),
      };
    }
    return last.ready;
  };
}
