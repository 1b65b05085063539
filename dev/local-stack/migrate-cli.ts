// `npm run migrate`: applies sql/ to DATABASE_URL (a postgres:// URL, e.g. a Neon connection
// string with sslmode=require), as the release migrator does, or, when it is unset, to the
// embedded PGlite data folder (PGLITE_DATA_DIR, default .data/pglite), which it locks first.
import { BESIDE_OTHER_TABLES_SETTING, LOCK_TIMEOUT } from "../../edge/migrate/migrate.ts";
import { migrateAndReport, migrateDatabaseUrl } from "../../edge/migrate/run.ts";
import { parseCommandLine } from "../support/command-line.ts";
import { pgliteDataDir } from "./data-dir.ts";
import { lockDataFolder } from "./data-lock.ts";
import { createPgliteBackend } from "./neon-endpoint/pglite-backend.ts";

const USAGE = `Usage: npm run migrate [-- --help]

Applies the pending migrations in sql/ to DATABASE_URL, or, when it is unset, to the embedded
database in PGLITE_DATA_DIR (default .data/pglite; refused while npm start holds it).
On Neon use the direct (non-pooled) host with sslmode=require: see docs/local-stack.md.
Two runs at once are safe: each migration is applied once, under a lock. A statement waits at
most ${LOCK_TIMEOUT} for a lock, then the migration is retried (up to 60 times), so traffic never
queues behind it; no-transaction files (CREATE INDEX CONCURRENTLY) run statement by statement.
A schema that already holds tables this project did not make is refused, unless
${BESIDE_OTHER_TABLES_SETTING}=true.`;

parseCommandLine(USAGE, {});

async function migrateEmbedded(): Promise<number> {
  const dir = pgliteDataDir();
  let lock: Awaited<ReturnType<typeof lockDataFolder>> | undefined;
  try {
    lock = await lockDataFolder(dir);
  } catch (error) {
    console.error(`Migration failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const backend = await createPgliteBackend(dir);
  try {
    return await migrateAndReport(backend, `PGlite at ${dir}`);
  } finally {
    await backend.close();
    lock.release();
  }
}

const databaseUrl = process.env.DATABASE_URL || undefined;
process.exitCode = databaseUrl ? await migrateDatabaseUrl(databaseUrl) : await migrateEmbedded();
