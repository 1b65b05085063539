// `npm run reset`: deletes the embedded database (PGLITE_DATA_DIR, default .data/pglite), so the
// next `npm start` begins empty. Refuses while a process holds the folder, naming it, and refuses a
// folder that holds anything a database does not (PGLITE_DATA_DIR=. would name the project).
import { existsSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { parseCommandLine } from "../support/command-line.ts";
import { pgliteDataDir } from "./data-dir.ts";
import { DataFolderLockedError, lockDataFolder } from "./data-lock.ts";

const USAGE = `Usage: npm run reset

Deletes the embedded database's folder (PGLITE_DATA_DIR, default .data/pglite): every local link,
asset and document. Stop npm start first; a folder in use is left alone, and so is one holding
anything but a database. The development key (.data/dev-auth-secret) is kept, so tokens minted
with it still work.`;

// What a PostgreSQL data folder holds at its top (PGlite's is one), a partly written one included.
const DATABASE_ENTRY =
  /^(PG_VERSION|base|global|pg_[a-z_]+|pg_(hba|ident)\.conf|postgresql(\.auto)?\.conf|postmaster\.(pid|opts))$/;

/** The first entry of `folder` no database folder holds, or undefined. */
async function foreignEntry(folder: string): Promise<string | undefined> {
  return (await readdir(folder)).find((name) => !DATABASE_ENTRY.test(name));
}

parseCommandLine(USAGE, {});
const folder = pgliteDataDir();
// With DATABASE_URL set, npm start serves that PostgreSQL, which reset never touches.
const next = process.env.DATABASE_URL
  ? "the next npm start without DATABASE_URL begins with an empty database"
  : "the next npm start begins with an empty database";
if (!existsSync(folder)) {
  console.log(`Nothing to delete: ${folder} does not exist; ${next}.`);
  process.exit(0);
}
try {
  const lock = await lockDataFolder(folder);
  const foreign = await foreignEntry(folder);
  if (foreign !== undefined) {
    lock.release();
    console.error(
      `Not deleted: ${folder} holds "${foreign}", which no database folder does; PGLITE_DATA_DIR must name a folder of the database alone.`,
    );
    process.exit(1);
  }
  await rm(folder, { recursive: true, force: true });
  lock.release();
  console.log(`Deleted ${folder}: ${next}.`);
} catch (error) {
  if (!(error instanceof DataFolderLockedError)) throw error;
  console.error(error.message);
  process.exit(1);
}
