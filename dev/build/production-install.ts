// What a release installs beside its files: package.json's production dependencies only, exactly
// as the lock file pins them (`npm ci --omit=dev`). Builds here test their output against it.
import { execFile } from "node:child_process";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./fastly.ts";

export const PRODUCTION_INSTALL = ["npm", "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"];

/** Runs the install in `dir`, copying package.json and its lock there first unless `dir` has them. */
export async function installProductionDependencies(dir: string, { copyManifest = false } = {}): Promise<void> {
  if (copyManifest) {
    for (const file of ["package.json", "package-lock.json"]) await cp(join(ROOT, file), join(dir, file));
  }
  const [command, ...args] = PRODUCTION_INSTALL;
  // From npm's cache when it holds the packages (it does after `npm ci` here): no network needed.
  await promisify(execFile)(command!, [...args, "--prefer-offline"], { cwd: dir });
}
