// Where the embedded database lives, the same for every command (npm start, npm run migrate,
// the soak): PGLITE_DATA_DIR, relative to the current folder, or .data/pglite in the project.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const DEFAULT_DATA_DIR = fileURLToPath(new URL("../../.data/pglite", import.meta.url));

/**
 * npm runs its scripts from the project's root and names the folder it was run from in INIT_CWD:
 * a relative PGLITE_DATA_DIR is resolved from there, as the shell that set it reads it.
 */
export function pgliteDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PGLITE_DATA_DIR ? resolve(env.INIT_CWD || process.cwd(), env.PGLITE_DATA_DIR) : DEFAULT_DATA_DIR;
}
