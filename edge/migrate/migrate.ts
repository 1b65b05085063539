// Applies sql/NNNN_name.sql files in order, each once: each in its own transaction, or, when its
// first line is `-- migrate: no-transaction`, statement by statement (CREATE INDEX CONCURRENTLY,
// VALIDATE CONSTRAINT: what must not hold a lock that stops traffic). Online: a migration waits at
// most LOCK_TIMEOUT for a lock, then gives up and is retried, instead of queueing behind traffic
// while every statement that arrives after it queues behind it. docs/deploy.md has the rules.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL("../../sql", import.meta.url));

const MIGRATION_FILE = /^\d{4}_[A-Za-z0-9_-]+\.sql$/;

// One key for every migrator of any database: taken per transaction, released by COMMIT/ROLLBACK.
const LOCK = "SELECT pg_advisory_xact_lock(hashtext('schema_migrations'))";

// The same key, shared, held by a no-transaction statement from the check that its file is still
// unrecorded until the statement has run: migrators in one such file go on side by side, while a
// transactional file of another (LOCK, exclusive) waits for the statement. Without it a migrator
// ahead could commit a later file in between (0013 renames what 0006 builds, 0015 what 0014
// builds), and the one behind would then build the renamed index again, a second copy for good.
const SHARED_LOCK = "SELECT pg_advisory_lock_shared(hashtext('schema_migrations'))";
const SHARED_UNLOCK = "SELECT pg_advisory_unlock_shared(hashtext('schema_migrations'))";

/** The first line of a file whose statements run one by one, outside any transaction. */
const OUTSIDE_TRANSACTION = /^-- migrate: no-transaction\b/;

/** How long a migration's statement may wait for a lock; traffic it blocks waits no longer. */
export const LOCK_TIMEOUT = "500ms";

/** One database session, as the migrator uses it: PostgreSQL's, or the local stack's PGlite. */
export interface MigrationSession {
  /** One parameterized statement; every value comes back as Postgres text (or null). */
  query(statement: { query: string; params: (string | null)[] }): Promise<{ rows: (string | null)[][] }>;
  /** A multi-statement script (simple protocol). */
  exec(script: string): Promise<void>;
}

/** A field of a Postgres error as the sessions throw it (`code` holds the SQLSTATE). */
function errorField(error: unknown, field: "code" | "constraint"): unknown {
  return typeof error === "object" && error !== null ? (error as Record<string, unknown>)[field] : undefined;
}

/**
 * The setting that lets the migrations go into a schema that already holds tables the project did
 * not make (`true`); by default such a schema is refused, with one line.
 */
export const BESIDE_OTHER_TABLES_SETTING = "MIGRATE_BESIDE_OTHER_TABLES";

interface MigrateOptions {
  /** Migrate beside tables the project did not make (default: the setting, else refused). */
  besideOtherTables?: boolean;
  /** Attempts per file when a lock was not granted within LOCK_TIMEOUT (default 60). */
  attempts?: number;
  /** Pause before attempt n (default 250 ms × n, at most 3 s). */
  backoffMs?: (attempt: number) => number;
  /** Called as each file is applied, with its name (the migration bench times each file). */
  onApplied?: (name: string) => void;
}

/**
 * Applies the pending migrations of `dir` and returns their names, in order.
 * A transactional file must not contain its own BEGIN/COMMIT: it runs inside
 * "BEGIN; lock; record; <file>; COMMIT", so a failing file leaves no trace, not even its record.
 * A no-transaction file holds plain statements (no $$ bodies), each one safe to run again.
 */
export async function migrate(
  backend: MigrationSession,
  dir: string = DEFAULT_MIGRATIONS_DIR,
  options: MigrateOptions = {},
): Promise<string[]> {
  const besideOtherTables = options.besideOtherTables ?? process.env[BESIDE_OTHER_TABLES_SETTING] === "true";
  if (!besideOtherTables) await refuseOtherTables(backend);
  // Under the lock: two first-time migrators racing on CREATE TABLE IF NOT EXISTS can both try.
  // Another migrator holds it while a file of its runs: waited for as a file waits for it.
  await withRetries("schema_migrations", options, async () => {
    await backend.exec(
      `BEGIN; ${LOCK}; CREATE TABLE IF NOT EXISTS schema_migrations ` +
        "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now()); COMMIT;",
    );
    return true;
  });
  const done = await appliedNames(backend);
  const applied: string[] = [];
  for (const name of await migrationFiles(dir)) {
    if (done.has(name)) continue;
    const sql = await readFile(join(dir, name), "utf8");
    const suspects = new Set<string>();
    const apply = OUTSIDE_TRANSACTION.test(sql)
      ? () => applyOutsideTransaction(backend, name, sql, suspects)
      : () => applyInTransaction(backend, name, sql, besideOtherTables);
    if (!(await withRetries(name, options, apply))) continue;
    applied.push(name);
    options.onApplied?.(name);
  }
  return applied;
}

// Tables, views and the like of the schema the migrations go to, when they have never run there.
const OTHER_TABLES = `
  SELECT current_database(), current_schema(), array_to_string((array_agg(relname ORDER BY relname))[1:5], ', '), count(*)
    FROM pg_class
   WHERE relnamespace = to_regnamespace(current_schema()) AND relkind IN ('r', 'p', 'v', 'm', 'f')
  HAVING count(*) > 0 AND NOT bool_or(relname = 'schema_migrations')`;

/**
 * A schema the project never migrated that holds tables already is someone else's (a database
 * named by mistake, `postgres` itself): refused, rather than mixing the project's tables into it.
 */
async function refuseOtherTables(backend: MigrationSession): Promise<void> {
  const [found] = (await backend.query({ query: OTHER_TABLES, params: [] })).rows;
  if (!found) return;
  const [database, schema, names, count] = found;
  throw new OtherTablesError(
    `schema ${schema} of database ${database} already holds ${count} tables this project did not make ` +
      `(${names}${Number(count) > 5 ? ", …" : ""}): give DATABASE_URL a database of its own (or set ${BESIDE_OTHER_TABLES_SETTING}=true to migrate beside them)`,
  );
}

/** The schema holds tables the project did not make; nothing was changed. */
export class OtherTablesError extends Error {
  override name = "OtherTablesError";
}

/** The migration file names in `dir`, in the order they apply. */
export async function migrationFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  return names.filter((name) => MIGRATION_FILE.test(name)).sort();
}

async function appliedNames(backend: MigrationSession): Promise<Set<string>> {
  const result = await backend.query({ query: "SELECT name FROM schema_migrations", params: [] });
  return new Set(result.rows.map((row) => row[0] ?? ""));
}

const recordStatement = (name: string) =>
  `INSERT INTO schema_migrations (name) VALUES ('${name.replaceAll("'", "''")}')`;

/** false when another migrator applied it first (its record then collides with ours). */
async function applyInTransaction(
  backend: MigrationSession,
  name: string,
  sql: string,
  besideOtherTables: boolean,
): Promise<boolean> {
  // The record goes in before the body, under the lock: a concurrent migrator of the same file
  // waits for the lock, then fails on the primary key before running the body a second time.
  // The newline before COMMIT ends a trailing "-- comment" in the file.
  // A migration may take longer than the statement timeout the app runs under (0004_timeouts).
  // A file may ask whether it goes beside another application's tables (sql/0017).
  const beside = besideOtherTables ? "SET LOCAL edge_race_free.beside_other_tables = 'true';\n" : "";
  const script =
    `BEGIN;\nSET LOCAL statement_timeout = 0;\nSET LOCAL lock_timeout = '${LOCK_TIMEOUT}';\n${beside}` +
    `${LOCK};\n${recordStatement(name)};\n${sql}\n;\nCOMMIT;`;
  try {
    await backend.exec(script);
    return true;
  } catch (error) {
    if (errorField(error, "constraint") === "schema_migrations_pkey") return false;
    throw error;
  }
}

/**
 * Each statement on its own, then the record. Nothing holds them together, so each must be
 * idempotent (IF NOT EXISTS, VALIDATE): a failed run is simply run again. The session's own
 * timeouts apply (npm run migrate lifts the statement timeout and sets LOCK_TIMEOUT for it).
 * `suspects`: the file's invalid indexes found with no build in progress (dropInvalidIndex).
 */
async function applyOutsideTransaction(
  backend: MigrationSession,
  name: string,
  sql: string,
  suspects: Set<string>,
): Promise<boolean> {
  for (const statement of plainStatements(name, sql)) {
    await backend.query({ query: SHARED_LOCK, params: [] });
    try {
      // Applied by a concurrent migrator meanwhile, which may have gone on to the files after it:
      // running the rest again could undo what they did (0013 renames the indexes 0006 builds).
      if (await isRecorded(backend, name)) return false;
      await dropInvalidIndex(backend, statement, suspects);
      await backend.exec(statement);
    } finally {
      // A session whose connection broke has lost the lock with it: nothing is left to release.
      await backend.query({ query: SHARED_UNLOCK, params: [] }).catch(() => {});
    }
  }
  // A concurrent migrator may have run the same statements (all idempotent) and recorded first.
  const recorded = await backend.query({
    query: `${recordStatement(name)} ON CONFLICT (name) DO NOTHING RETURNING name`,
    params: [],
  });
  return recorded.rows.length > 0;
}

async function isRecorded(backend: MigrationSession, name: string): Promise<boolean> {
  const found = await backend.query({ query: "SELECT 1 FROM schema_migrations WHERE name = $1", params: [name] });
  return found.rows.length > 0;
}

/** `$$` or `$tag$`: a dollar-quoted body, whose `;` lines this splitter cannot tell from ends. */
const DOLLAR_QUOTE = /\$(?:[A-Za-z_]\w*)?\$/;

/** The statements of a no-transaction file: split at each `;` that ends a line, comments dropped. */
export function plainStatements(name: string, sql: string): string[] {
  const text = sql.replace(/--[^\n]*/g, "");
  if (DOLLAR_QUOTE.test(text))
    throw new MigrationError(name, new Error("a no-transaction migration holds no $ bodies"));
  return text
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== "");
}

const CONCURRENT_INDEX = /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+IF\s+NOT\s+EXISTS\s+("?[\w.]+"?)/i;

/**
 * A CREATE INDEX CONCURRENTLY that failed leaves its index behind, invalid: IF NOT EXISTS would
 * then skip the build and keep it so. It is dropped first, so the retry builds it. An index is
 * invalid while it is being built too: one a concurrent migrator is building is left to it, and
 * this file is tried again later, as when a lock is refused. A build that has just ended looks
 * abandoned for a moment: PostgreSQL ends its progress row before committing the index valid, so
 * a snapshot taken before that commit sees it invalid with no build in progress. Dropped then, a
 * unique index would be gone, and its guarantee with it, until built again. So an index found so
 * is a suspect, and dropped only when found so again after the pause before the next attempt.
 */
async function dropInvalidIndex(backend: MigrationSession, statement: string, suspects: Set<string>) {
  const index = statement.match(CONCURRENT_INDEX)?.[1];
  if (!index) return;
  const found = await backend.query({
    query: `SELECT EXISTS (SELECT 1 FROM pg_stat_progress_create_index WHERE index_relid = indexrelid)
      FROM pg_index WHERE indexrelid = to_regclass($1) AND NOT indisvalid`,
    params: [index],
  });
  const [invalid] = found.rows;
  if (!invalid) return;
  if (invalid[0] === "t") throw new BuildInProgress(index);
  if (!suspects.has(index)) {
    suspects.add(index);
    throw new BuildInProgress(index, "may have just been built by another session");
  }
  await backend.exec(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
}

class BuildInProgress extends Error {
  constructor(index: string, state = "is being built by another session") {
    super(`index ${index} ${state}`);
  }
}

const LOCK_NOT_AVAILABLE = "55P03";

/**
 * What another session's concurrent work makes a statement fail with, to be tried again: a lock
 * refused, an index still being built, or a catalog row another session changed at the same moment
 * (a concurrent index build ending while this one drops it: PostgreSQL's "tuple concurrently updated").
 */
const isTransient = (error: unknown) =>
  errorField(error, "code") === LOCK_NOT_AVAILABLE ||
  error instanceof BuildInProgress ||
  (error instanceof Error && error.message === "tuple concurrently updated");

/** `apply()`, again after a pause while another session was in the way; any other failure names the file. */
async function withRetries(name: string, options: MigrateOptions, apply: () => Promise<boolean>): Promise<boolean> {
  const { attempts = 60, backoffMs = (attempt: number) => Math.min(250 * attempt, 3_000) } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await apply();
    } catch (error) {
      if (!isTransient(error) || attempt >= attempts)
        throw error instanceof MigrationError ? error : new MigrationError(name, error);
      await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
    }
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
