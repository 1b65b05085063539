// What a release installs beside its files: package.json's production dependencies only, exactly
// as the lock file pins them (`npm ci --omit=dev --omit=optional --no-workspaces`). Builds here test their output against it.
import { execFile } from "node:child_process";
import { cp, readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./fastly.ts";

/**
 * The install command the guide's image and Deno Deploy run. `--omit=optional` keeps out the
 * optional peers of production packages that the lock holds for development (TypeScript for
 * valibot, zod for hono-openapi's schema converters): npm flags those `devOptional`, which
 * `--omit=dev` alone keeps (npm/cli#7772). `--no-workspaces`: the benchmark's package (bench/)
 * is not linked into what ships.
 */
export const PRODUCTION_INSTALL_COMMAND = "npm ci --omit=dev --omit=optional --no-workspaces";
export const PRODUCTION_INSTALL = [
  ...PRODUCTION_INSTALL_COMMAND.split(" "),
  "--ignore-scripts",
  "--no-audit",
  "--no-fund",
];

interface LockEntry {
  /** A workspace's link (bench/), which the install does not make. */
  link?: boolean;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
}

/**
 * The packages the install puts in node_modules, read from package-lock.json's flags: every entry
 * under node_modules/ but those for development only, optional ones, `devOptional` ones and
 * workspace links.
 */
export function productionPackagesOfLock(lock: { packages: Record<string, LockEntry> }): string[] {
  const installed = (entry: LockEntry) => !entry.dev && !entry.optional && !entry.devOptional && !entry.link;
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith("node_modules/") && installed(entry))
    .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
}

/**
 * The OpenTelemetry SDK's packages (what exports traces, and its own dependencies: the OTLP
 * transformer brings the logs and metrics SDKs and the semantic conventions, 25 MB in all), kept
 * apart from the API's own install when its size is bounded and reported beside it.
 */
export const isTracingSdk = (name: string): boolean => name.startsWith("@opentelemetry/");

/** Runs the install in `dir`, copying package.json and its lock there first unless `dir` has them. */
export async function installProductionDependencies(dir: string, { copyManifest = false } = {}): Promise<void> {
  if (copyManifest) {
    for (const file of ["package.json", "package-lock.json"]) await cp(join(ROOT, file), join(dir, file));
  }
  const [command, ...args] = PRODUCTION_INSTALL;
  // From npm's cache when it holds the packages (it does after `npm ci` here): no network needed.
  await promisify(execFile)(command!, [...args, "--prefer-offline"], { cwd: dir });
}

// A package's own package.json, at `name/` or `@scope/name/`, under node_modules at any depth (a
// package's subfolders may hold package.json files of their own, e.g. {"type": "commonjs"}).
const PACKAGE_MANIFEST = /^(?:(?:@[^/]+\/)?[^/]+\/node_modules\/)*((?:@[^/]+\/)?[^/]+)\/package\.json$/;

/** The names of the packages a node_modules folder holds, nested ones included. */
export async function installedPackages(nodeModules: string): Promise<string[]> {
  const entries = await readdir(nodeModules, { recursive: true });
  return entries.flatMap((entry) => PACKAGE_MANIFEST.exec(entry.replaceAll("\\", "/"))?.[1] ?? []);
}

/** A folder's size on disk in MB, as `du -sm` counts it. */
export async function diskMegabytes(dir: string): Promise<number> {
  const { stdout } = await promisify(execFile)("du", ["-sm", dir]);
  return Number.parseInt(stdout, 10);
}
