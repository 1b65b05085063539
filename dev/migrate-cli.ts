// `npm run migrate`: applies sql/ to DATABASE_URL (a postgres:// URL, e.g. a Neon connection
// string with sslmode=require) or, when it is unset, to the embedded PGlite data folder
// (PGLITE_DATA_DIR, default .data/pglite), which it locks first. Never prints the password.

import { parseCommandLine } from "./cli.ts";
import { pgliteDataDir } from "./data-dir.ts";
import { type DataLock, lockDataFolder } from "./data-lock.ts";
import { BESIDE_OTHER_TABLES_SETTING, LOCK_TIMEOUT, migrate, migrationBackend } from "./migrate.ts";
import type { SqlBackend } from "./neon/backend.ts";
import { createPgliteBackend } from "./neon/pglite-backend.ts";
import { withExplicitSslMode } from "./pg-url.ts";

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

/** The URL as it may be shown: password replaced. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}

let lock: DataLock | undefined;

async function openBackend(databaseUrl: string | undefined): Promise<{ backend: SqlBackend; target: string }> {
  if (!databaseUrl) {
    const dir = pgliteDataDir();
    lock = await lockDataFolder(dir);
    return { backend: await createPgliteBackend(dir), target: `PGlite at ${dir}` };
  }
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error("DATABASE_URL must be a postgres:// or postgresql:// URL (or unset, for PGlite)");
  }
  return {
    backend: migrationBackend(withExplicitSslMode(databaseUrl)),
    target: redact(databaseUrl),
  };
}

async function main(): Promise<number> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  // Whatever goes wrong, the password must not reach the terminal, even inside an error message.
  const password = databaseUrl ? safePassword(databaseUrl) : "";
  const scrub = (text: string) => (password ? text.replaceAll(password, "***") : text);
  let backend: SqlBackend | undefined;
  try {
    const opened = await openBackend(databaseUrl);
    backend = opened.backend;
    console.log(`Migrating ${opened.target}`);
    const applied = await migrate(backend);
    if (applied.length === 0) console.log("Nothing to apply: the database is up to date.");
    for (const name of applied) console.log(`applied ${name}`);
    return 0;
  } catch (error) {
    console.error(scrub(`Migration failed: ${error instanceof Error ? error.message : String(error)}`));
    return 1;
  } finally {
    await backend?.close();
    lock?.release();
  }
}

function safePassword(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return "";
  }
}

process.exitCode = await main();
