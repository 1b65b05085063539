// Applies sql/NNNN_name.sql files in order, each once, each in its own transaction.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PostgresError, type SqlBackend } from "./neon/backend.ts";

export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL("../sql", import.meta.url));

const MIGRATION_FILE = /^\d{4}_[A-Za-z0-9_-]+\.sql$/;

// One key for every migrator of any database: taken per transaction, released by COMMIT/ROLLBACK.
const LOCK = "SELECT pg_advisory_xact_lock(hashtext('schema_migrations'))";

/**
 * Applies the pending migrations of `dir` and returns their names, in order.
 * A file must not contain its own BEGIN/COMMIT (nor CREATE INDEX CONCURRENTLY): it runs inside
 * "BEGIN; lock; record; <file>; COMMIT", so a failing file leaves no trace, not even its record.
 */
export async function migrate(backend: SqlBackend, dir: string = DEFAULT_MIGRATIONS_DIR): Promise<string[]> {
  // Under the lock: two first-time migrators racing on CREATE TABLE IF NOT EXISTS can both try.
  await backend.exec(
    `BEGIN; ${LOCK}; CREATE TABLE IF NOT EXISTS schema_migrations ` +
      "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now()); COMMIT;",
  );
  const done = await appliedNames(backend);
  const applied: string[] = [];
  for (const name of await migrationFiles(dir)) {
    if (done.has(name)) continue;
    const sql = await readFile(join(dir, name), "utf8");
    if (await applyOne(backend, name, sql)) applied.push(name);
  }
  return applied;
}

/** The migration file names in `dir`, in the order they apply. */
export async function migrationFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  return names.filter((name) => MIGRATION_FILE.test(name)).sort();
}

async function appliedNames(backend: SqlBackend): Promise<Set<string>> {
  const result = await backend.query({ query: "SELECT name FROM schema_migrations", params: [] });
  return new Set(result.rows.map((row) => row[0] ?? ""));
}

/** false when another migrator applied it first (its record then collides with ours). */
async function applyOne(backend: SqlBackend, name: string, sql: string): Promise<boolean> {
  // The record goes in before the body, under the lock: a concurrent migrator of the same file
  // waits for the lock, then fails on the primary key before running the body a second time.
  const record = `INSERT INTO schema_migrations (name) VALUES ('${name.replaceAll("'", "''")}')`;
  // The newline before COMMIT ends a trailing "-- comment" in the file.
  // A migration may take longer than the statement timeout the app runs under (0004_timeouts).
  const script = `BEGIN;\nSET LOCAL statement_timeout = 0;\n${LOCK};\n${record};\n${sql}\n;\nCOMMIT;`;
  try {
    await backend.exec(script);
    return true;
  } catch (error) {
    if (error instanceof PostgresError && error.fields.constraint === "schema_migrations_pkey") return false;
    throw new MigrationError(name, error);
  }
}

/** Names the file that failed; the Postgres error (code, position in the script…) is its cause. */
export class MigrationError extends Error {
  constructor(
    readonly migration: string,
    cause: unknown,
  ) {
    super(`migration ${migration} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "MigrationError";
  }
}
