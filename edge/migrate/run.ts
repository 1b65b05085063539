// A migration run as a command reports it: what it migrates, each file applied, or one line saying
// why it failed. Whatever goes wrong, the password of DATABASE_URL never reaches the terminal,
// not even inside an error message.
import { type MigrationSession, migrate } from "./migrate.ts";
import { postgresMigrationSession } from "./postgres.ts";

/** Migrates `session`, naming it `target`; the exit code. */
export async function migrateAndReport(
  session: MigrationSession,
  target: string,
  scrub: (text: string) => string = (text) => text,
): Promise<number> {
  try {
    console.log(`Migrating ${target}`);
    const applied = await migrate(session);
    if (applied.length === 0) console.log("Nothing to apply: the database is up to date.");
    for (const name of applied) console.log(`applied ${name}`);
    return 0;
  } catch (error) {
    return failed(error, scrub);
  }
}

function failed(error: unknown, scrub: (text: string) => string): number {
  console.error(scrub(`Migration failed: ${error instanceof Error ? error.message : String(error)}`));
  return 1;
}

/** Migrates the PostgreSQL database `databaseUrl` names; the exit code. */
export async function migrateDatabaseUrl(databaseUrl: string): Promise<number> {
  const password = passwordOf(databaseUrl);
  const scrub = (text: string) => (password ? text.replaceAll(password, "***") : text);
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    console.error("Migration failed: DATABASE_URL must be a postgres:// or postgresql:// URL");
    return 1;
  }
  let session: ReturnType<typeof postgresMigrationSession>;
  try {
    session = postgresMigrationSession(databaseUrl); // refuses an sslmode it would not verify
  } catch (error) {
    return failed(error, scrub);
  }
  try {
    return await migrateAndReport(session, redact(databaseUrl), scrub);
  } finally {
    await session.close();
  }
}

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

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return "";
  }
}
