// What Deno Deploy runs, built here: the files deno.json's `deploy` section uploads (its include
// and exclude lists, nothing else), then what its install step puts beside them (`npm ci
// --omit=dev`, the production dependencies of package.json). test/deploy/deno-deploy.test.ts
// type-checks the result: an import the upload cannot resolve fails there, not on Deploy.
import { cp, mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "./fastly.ts";
import { installProductionDependencies } from "./production-install.ts";

export interface DeployConfig {
  entrypoint: string;
  include: string[];
  exclude: string[];
}

/** Where the upload is assembled: a fixed folder, so that Deno's type-check cache serves again. */
export const DENO_DEPLOY_DIR = join(ROOT, "dist", "deno-deploy");

export async function readDeployConfig(root = ROOT): Promise<DeployConfig> {
  const config = JSON.parse(await readFile(join(root, "deno.json"), "utf8")) as { deploy: DeployConfig };
  return config.deploy;
}

/**
 * Whether a project-relative path matches one pattern of the section: a file, a folder (ending
 * in /), or any file with a suffix (**\/*.suffix). Other glob shapes are refused rather than
 * guessed at.
 */
export function matchesPattern(path: string, pattern: string): boolean {
  const suffix = /^\*\*\/\*([^*/]+)$/.exec(pattern)?.[1];
  if (suffix) return path.endsWith(suffix);
  if (pattern.includes("*")) throw new Error(`deno.json deploy: pattern ${pattern} is not one this build reads`);
  return pattern.endsWith("/") ? path.startsWith(pattern) : path === pattern;
}

/** The project-relative files the section uploads: its include list (files, folders) less its excludes. */
export async function uploadedFiles(config: DeployConfig, root = ROOT): Promise<string[]> {
  const files: string[] = [];
  for (const pattern of config.include) {
    if (pattern.includes("*")) throw new Error(`deno.json deploy: include ${pattern} must name a file or a folder`);
    files.push(...(pattern.endsWith("/") ? await filesUnder(root, pattern.slice(0, -1)) : [pattern]));
  }
  return files.filter((path) => !config.exclude.some((pattern) => matchesPattern(path, pattern))).sort();
}

async function filesUnder(root: string, dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await filesUnder(root, path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** Copies the uploaded files into `dir` and runs the install step there; returns the file list. */
export async function buildDenoDeployUpload(dir = DENO_DEPLOY_DIR): Promise<string[]> {
  const files = await uploadedFiles(await readDeployConfig());
  await rm(dir, { recursive: true, force: true });
  for (const file of files) {
    await mkdir(join(dir, file, ".."), { recursive: true });
    await cp(join(ROOT, file), join(dir, file));
  }
  await installProductionDependencies(dir);
  return files;
}
