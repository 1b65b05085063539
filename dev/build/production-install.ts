// What a release installs beside its files: package.json's production dependencies only, exactly
// as the lock file pins them (`npm ci --omit=dev --omit=optional --no-workspaces`). Builds here test their output against it.
import { execFile } from "node:child_process";
import { cp, readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { TRACING_INSTALL_COMMAND } from "../../edge/telemetry/load.ts";
import { ROOT } from "./fastly.ts";

/** The tracing SDK's package, a workspace the production install leaves out. */
const TRACING_MANIFEST = "edge/telemetry/package.json";

/**
 * The install command the guide's image and Deno Deploy run. `--omit=optional` keeps out the
 * optional peers of production packages that the lock holds for development (TypeScript for
 * valibot, zod for hono-openapi's schema converters): npm flags those `devOptional`, which
 * `--omit=dev` alone keeps (npm/cli#7772). `--no-workspaces`: neither the benchmark's package
 * (bench/) nor the OpenTelemetry SDK's (edge/telemetry/, TRACING_INSTALL_COMMAND adds it) is installed.
 */
export const PRODUCTION_INSTALL_COMMAND = "npm ci --omit=dev --omit=optional --no-workspaces";
/** What a test's install adds: no package's scripts, no report. */
const QUIET = ["--ignore-scripts", "--no-audit", "--no-fund"];

interface LockEntry {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/**
 * The packages the install puts in node_modules, read from package-lock.json: what the root's
 * dependencies need, each entry found as Node would find it from the one that needs it, and what
 * those need in turn (dependencies and required peers; optional ones are omitted). Neither the
 * workspaces' packages (bench/, edge/telemetry/) nor development ones are reached.
 */
export function productionPackagesOfLock(lock: { packages: Record<string, LockEntry> }): string[] {
  const found = new Set<string>();
  const visit = (from: string, name: string) => {
    const path = locate(lock.packages, from, name);
    if (path === undefined || found.has(path)) return;
    found.add(path);
    for (const needed of requiredOf(lock.packages[path]!)) visit(path, needed);
  };
  for (const name of Object.keys(lock.packages[""]?.dependencies ?? {})) visit("", name);
  return [...found].map((path) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
}

const requiredOf = ({ dependencies = {}, peerDependencies = {}, peerDependenciesMeta = {} }: LockEntry) => [
  ...Object.keys(dependencies),
  ...Object.keys(peerDependencies).filter((name) => !peerDependenciesMeta[name]?.optional),
];

/** Where `name` is installed for the package at `from`: its own node_modules, then each above. */
function locate(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
    const path = `${dir ? `${dir}/` : ""}node_modules/${name}`;
    if (path in packages) return path;
    if (!dir) return undefined;
  }
}

/**
 * Runs the install in `dir`, copying package.json and its lock there first unless `dir` has them;
 * `tracing`: the install that adds the OpenTelemetry SDK (TRACING_INSTALL_COMMAND).
 */
export async function installProductionDependencies(
  dir: string,
  { copyManifest = false, tracing = false } = {},
): Promise<void> {
  const manifests = ["package.json", "package-lock.json", ...(tracing ? [TRACING_MANIFEST] : [])];
  if (copyManifest) {
    for (const file of manifests) await cp(join(ROOT, file), join(dir, file), { recursive: true });
  }
  const [command, ...args] = [...(tracing ? TRACING_INSTALL_COMMAND : PRODUCTION_INSTALL_COMMAND).split(" "), ...QUIET];
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
