// `npm run build:node`: the Node release, dist/node/index.js (the server) and dist/node/migrate.js
// (the release migrator for the database at DATABASE_URL), ES modules with their shared code in
// chunks/. Packages stay imports, so both run with `npm ci --omit=dev --omit=optional
// --no-workspaces` (every import is a runtime dependency); the tracing module (chunks/telemetry-*)
// needs the tracing install as well, and is loaded only when traces are asked for.

import { cp, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { installedScalarScript, SCALAR_SCRIPT_NAME } from "../../edge/node/api-reference.ts";

const SOURCE_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ENTRIES = { index: "edge/node/index.ts", migrate: "edge/migrate/index.ts" };
const DEFAULT_OUTDIR = join(SOURCE_ROOT, "dist", "node");

export interface NodeRelease {
  server: string;
  migrate: string;
}

/**
 * Builds into `outdir` (`<release>/dist/node`), with sql/ at `<release>/sql`: two folders up from
 * the migrator, where it looks from edge/migrate/ in the source too.
 */
export async function buildNodeRelease(outdir = DEFAULT_OUTDIR): Promise<NodeRelease> {
  // Chunks are named by their content: an earlier build's would stay beside this one's.
  await rm(join(outdir, "chunks"), { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, join(SOURCE_ROOT, path)])),
    outdir,
    bundle: true,
    packages: "external",
    format: "esm",
    // The tracing module, imported only when traces are asked for (edge/telemetry/load.ts), stays
    // a file of its own: bundled into the server, its SDK imports would be the server's.
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    platform: "node",
    target: "node20",
    logLevel: "silent",
  });
  // /docs (API_DOCS=on) serves Scalar's one browser bundle from beside the server: the package
  // that ships it is a development dependency, absent from a production install.
  await cp(installedScalarScript(), join(outdir, SCALAR_SCRIPT_NAME));
  const sql = resolve(outdir, "..", "..", "sql");
  if (sql !== resolve(SOURCE_ROOT, "sql")) {
    await rm(sql, { recursive: true, force: true });
    await cp(join(SOURCE_ROOT, "sql"), sql, { recursive: true });
  }
  return { server: join(outdir, "index.js"), migrate: join(outdir, "migrate.js") };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const release = await buildNodeRelease();
  console.log(`${release.server}\n${release.migrate}`);
}
