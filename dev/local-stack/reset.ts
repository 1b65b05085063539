// `npm run reset`: deletes the embedded database (PGLITE_DATA_DIR, default .data/pglite), so the
// next `npm start` begins empty. Refuses while a process holds the folder, naming it.
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { parseCommandLine } from "../support/command-line.ts";
import { pgliteDataDir } from "./data-dir.ts";
import { DataFolderLockedError, lockDataFolder } from "./data-lock.ts";

const USAGE = `Usage: npm run reset

Deletes the embedded database's folder (PGLITE_DATA_DIR, default .data/pglite): every local link,
asset and document. Stop npm start first; a folder in use is left alone. The development key
(.data/dev-auth-secret) is kept, so tokens minted with it still work.`;

parseCommandLine(USAGE, {});
const folder = pgliteDataDir();
if (!existsSync(folder)) {
  console.log(`Nothing to delete: ${folder} does not exist; the next npm start begins with an empty database.`);
  process.exit(0);
}
try {
  const lock = await lockDataFolder(folder);
  await rm(folder, { recursive: true, force: true });
  lock.release();
  console.log(`Deleted ${folder}: the next npm start begins with an empty database.`);
} catch (error) {
  if (!(error instanceof DataFolderLockedError)) throw error;
  console.error(error.message);
  process.exit(1);
}
