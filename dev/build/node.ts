// `npm run build:node`: the Node release, dist/node/index.js (the server) and dist/node/migrate.js
// (`npm run migrate` for the database at DATABASE_URL), each one ES module, with the migrations
// in dist/sql. Packages stay imports, so both run with `npm ci --omit=dev` (every import is a
// runtime dependency).

import { cp, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { installedScalarScript, SCALAR_SCRIPT_NAME } from "../../edge/node/api-reference.ts";

const SOURCE_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENTRIES = { index: "edge/node/index.ts", migrate: "dev/migrate-release.ts" };
const DEFAULT_OUTDIR = join(SOURCE_ROOT, "dist", "node");

export interface NodeRelease {
  server: string;
  migrate: string;
}

/**
 * Builds into `outdir`, with sql/ copied beside it (`<outdir>/../sql`: where the migrator looks,
 * relative to itself, as dev/migrate.ts does from dev/).
 */
export async function buildNodeRelease(outdir = DEFAULT_OUTDIR): Promise<NodeRelease> {
  await build({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, join(SOURCE_ROOT, path)])),
    outdir,
    bundle: true,
    packages: "external",
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "silent",
    plugins: [withoutPglite],
  });
  // /docs (API_DOCS=on) serves Scalar's one browser bundle from beside the server: the package
  // that ships it is a development dependency, absent from a production install.
  await cp(installedScalarScript(), join(outdir, SCALAR_SCRIPT_NAME));
  const sql = join(outdir, "..", "sql");
  await rm(sql, { recursive: true, force: true });
  await cp(join(SOURCE_ROOT, "sql"), sql, { recursive: true });
  return { server: join(outdir, "index.js"), migrate: join(outdir, "migrate.js") };
}

/**
 * The migrator opens PGlite only when DATABASE_URL is unset, which the release entry refuses; the
 * module would still import its (development) package at load, so the build swaps it for one
 * that says why it is absent.
 */
const withoutPglite: Plugin = {
  name: "without-pglite",
  setup(build) {
    build.onResolve({ filter: /\/pglite-backend\.ts$/ }, () => ({ path: "pglite-backend", namespace: "release" }));
    build.onLoad({ filter: /.*/, namespace: "release" }, () => ({
      contents:
        'export function createPgliteBackend() { throw new Error("the release build migrates DATABASE_URL only"); }',
      loader: "js",
    }));
  },
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const release = await buildNodeRelease();
  console.log(`${release.server}\n${release.migrate}`);
}
