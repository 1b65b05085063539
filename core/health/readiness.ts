import { elapsedSince } from "../lib/elapsed.ts";
import { errorMessage, type Logger } from "../log.ts";
import { DatabaseError, type Sql } from "../ports/sql.ts";
import { SettingsError } from "../settings/error.ts";
import { NEWEST_MIGRATION } from "./newest-migration.ts";

/** How old a readiness answer may be: a flood of probes costs one round trip a second. */
export const READINESS_MAX_AGE_MS = 1000;

/**
 * The check's one statement: whether the migrator (edge/migrate/) recorded the migration this
 * code needs ($1), and the newest it recorded, for the log. Later records mean a schema ahead of
 * the code, which the migration rules keep it running on (docs/migrations.md): ready.
 */
export const READINESS_STATEMENT =
  "SELECT coalesce(bool_or(name = $1), false) AS migrated, max(name) AS newest FROM schema_migrations";

/** A table the statement names does not exist (SQLSTATE undefined_table). */
const UNDEFINED_TABLE = "42P01";

/** The migration the database lacks, and the newest it has recorded (null: none). */
export interface SchemaBehind {
  needs: string;
  newest: string | null;
}

/** Ready; or the schema is behind the code; or the check failed, with what it failed with. */
export type Readiness =
  | { ready: true }
  | { ready: false; schemaBehind: SchemaBehind }
  | { ready: false; error: unknown };

type MigrationsRow = { migrated: boolean; newest: string | null };

/**
 * This instance's readiness check: whether Postgres answers and holds the schema this code needs,
 * asked at most once per `maxAgeMs`. `/readyz` needs no token, so without this every anonymous
 * probe would be a database round trip (a Neon compute kept awake, a Workers subrequest, a
 * Compute backend call). Callers within the age share one check, the one in flight included, and
 * its answer, failure included. A failed check logs why once (a probe's 503 says only "not
 * ready"); a refused login is left to the answer, which names DATABASE_URL and logs it.
 */
export function recentReadiness(logger: Logger, maxAgeMs = READINESS_MAX_AGE_MS, now: () => number = Date.now) {
  let last: { startedAt: number; readiness: Promise<Readiness> } | undefined;
  const behind = (newest: string | null): Readiness => {
    const schemaBehind = { needs: NEWEST_MIGRATION, newest };
    logger.log("warn", "database_schema_behind", { ...schemaBehind });
    return { ready: false, schemaBehind };
  };
  const answered = ([row]: MigrationsRow[]): Readiness => {
    // An aggregate answers one row: without it, or its flag, the answer came from something else.
    if (typeof row?.migrated !== "boolean")
      return failed(new Error("the readiness statement answered no migrated flag"));
    return row.migrated ? { ready: true } : behind(row.newest);
  };
  const failed = (error: unknown): Readiness => {
    // No schema_migrations: the migrator never ran on this database (every path that builds the
    // schema, the local stack's included, records there), so none of the schema is there.
    if (error instanceof DatabaseError && error.code === UNDEFINED_TABLE) return behind(null);
    if (!(error instanceof SettingsError)) logger.log("warn", "readiness_check_failed", { error: errorMessage(error) });
    return { ready: false, error };
  };
  return (sql: Sql): Promise<Readiness> => {
    const at = now();
    if (!last || elapsedSince(at, last.startedAt) >= maxAgeMs) {
      const checked = sql.query<MigrationsRow>(READINESS_STATEMENT, [NEWEST_MIGRATION]);
      last = { startedAt: at, readiness: checked.then(answered, failed) };
    }
    return last.readiness;
  };
}
