// What Deno Deploy builds, assembled here. An app linked to this repository builds from a commit:
// its builder checks out the tracked files, runs the install command of deno.json's `deploy`
// section there, and starts its runtime entry point (no build command, no type-check). Deno Deploy
// reads that section as the app's configuration, in place of the dashboard's. The test in
// test/deploy/deno-deploy.test.ts type-checks the result: an import the build cannot resolve
// fails there, not on Deploy.
import { execFile } from "node:child_process";
import { cp, mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./fastly.ts";

const run = promisify(execFile);

export interface DeployConfig {
  install: string;
  runtime: { type: "dynamic"; entrypoint: string };
}

/** Where the build is assembled: a fixed folder, so that Deno's type-check cache serves again. */
export const DENO_DEPLOY_DIR = join(ROOT, "dist", "deno-deploy");

/**
 * deno.json's `deploy` section, refused with a line naming the key when it is not the shape this
 * project deploys with (an install command, a dynamic runtime with an entry point).
 */
export async function readDeployConfig(root = ROOT): Promise<DeployConfig> {
  const { deploy } = JSON.parse(await readFile(join(root, "deno.json"), "utf8")) as { deploy?: Partial<DeployConfig> };
  if (typeof deploy?.install !== "string") throw new Error("deno.json: deploy.install must be the install command");
  if (deploy.runtime?.type !== "dynamic" || typeof deploy.runtime.entrypoint !== "string") {
    throw new Error('deno.json: deploy.runtime must be { "type": "dynamic", "entrypoint": … }');
  }
  return deploy as DeployConfig;
}

/** The project-relative files a build from this checkout's commit starts with: the tracked ones. */
export async function trackedFiles(root = ROOT): Promise<string[]> {
  const { stdout } = await run("git", ["ls-files", "-z"], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  return stdout.split("\0").filter(Boolean).sort();
}

/** Copies the tracked files into `dir` and runs the install command there; returns the file list. */
export async function buildDenoDeployUpload(dir = DENO_DEPLOY_DIR): Promise<string[]> {
  const config = await readDeployConfig();
  const files = await trackedFiles();
  await rm(dir, { recursive: true, force: true });
  for (const file of files) {
    await mkdir(join(dir, file, ".."), { recursive: true });
    await cp(join(ROOT, file), join(dir, file));
  }
  // The command as configured; only where npm looks first changes (its cache, filled by the
  // checkout's own install), so that the build needs no network here.
  await run("sh", ["-c", config.install], {
    cwd: dir,
    env: { ...process.env, npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false" },
  });
  return files;
}
