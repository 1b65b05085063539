// Where the embedded database lives, the same for every command (npm start, npm run migrate,
// the soak): PGLITE_DATA_DIR, relative to the current folder, or .data/pglite in the project.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const DEFAULT_DATA_DIR = fileURLToPath(new URL("../../.data/pglite", import.meta.url));

export function pgliteDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PGLITE_DATA_DIR ? resolve(env.PGLITE_DATA_DIR) : DEFAULT_DATA_DIR;
}
