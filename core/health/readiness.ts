import { errorMessage, type Logger } from "../log.ts";
import type { Sql } from "../ports/sql.ts";
import { SettingsError } from "../settings/error.ts";

/** How old a readiness answer may be: a flood of probes costs one round trip a second. */
export const READINESS_MAX_AGE_MS = 1000;

/** Whether Postgres answered; when not, what the check failed with. */
export type Readiness = { ready: true } | { ready: false; error: unknown };

/**
 * This instance's readiness check: whether Postgres answers, asked at most once per `maxAgeMs`.
 * `/readyz` needs no token, so without this every anonymous probe would be a database round trip
 * (a Neon compute kept awake, a Workers subrequest, a Compute backend call). Callers within the
 * age share one check, the one in flight included, and its answer, failure included. A failed
 * check logs why once (a probe's 503 says only "not ready"); a refused login is left to the
 * answer, which names DATABASE_URL and logs it.
 */
export function recentReadiness(logger: Logger, maxAgeMs = READINESS_MAX_AGE_MS, now: () => number = Date.now) {
  let last: { startedAt: number; readiness: Promise<Readiness> } | undefined;
  const failed = (error: unknown): Readiness => {
    if (!(error instanceof SettingsError)) logger.log("warn", "readiness_check_failed", { error: errorMessage(error) });
    return { ready: false, error };
  };
  return (sql: Sql): Promise<Readiness> => {
    const at = now();
    if (!last || at - last.startedAt >= maxAgeMs || at < last.startedAt) {
      last = { startedAt: at, readiness: sql.query("SELECT 1 AS ok").then(() => ({ ready: true }), failed) };
    }
    return last.readiness;
  };
}
