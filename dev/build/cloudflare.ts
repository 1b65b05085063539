// Bundles the worker into one ES module, as deployed (wrangler.toml uploads it unbundled).
// `npx tsx dev/build/cloudflare.ts` writes dist/cloudflare/worker.js and prints its size.

import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const WORKER_ENTRY = fileURLToPath(new URL("../../edge/cloudflare/index.ts", import.meta.url));
export const WORKER_OUTFILE = fileURLToPath(new URL("../../dist/cloudflare/worker.js", import.meta.url));

/** Schema libraries the OpenAPI document's converter could load by name, none of which the service uses. */
export const UNUSED_SCHEMA_LIBRARIES = [
  "zod",
  "zod/*",
  "zod-openapi",
  "zod-to-json-schema",
  "effect",
  "sury",
  "arktype",
];

export interface WorkerBundle {
  code: string;
  bytes: number;
  gzipBytes: number;
  /** With `sourceMap`: the map, its sources relative to WORKER_OUTFILE (a profile reads frames by it). */
  map?: string;
}

/** The worker as one minified ES module, in memory; with `sourceMap`, its source map beside it. */
export async function bundleWorker({ sourceMap = false } = {}): Promise<WorkerBundle> {
  const result = await build({
    entryPoints: [WORKER_ENTRY],
    bundle: true,
    write: false,
    outfile: WORKER_OUTFILE,
    sourcemap: sourceMap ? "external" : false,
    format: "esm",
    // The package conditions wrangler resolves with; no Node built-ins (no nodejs_compat).
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    // hono-openapi converts schemas through @standard-community/standard-json, which imports each
    // schema library's converter by name when it meets one of its schemas. This service's are
    // valibot's; zod, installed here for other packages, would otherwise be bundled (~400 KiB).
    external: UNUSED_SCHEMA_LIBRARIES,
    minify: true,
    legalComments: "none",
    logLevel: "silent",
  });
  const file = result.outputFiles.find((output) => output.path === WORKER_OUTFILE);
  if (!file) throw new Error("esbuild produced no output");
  const map = result.outputFiles.find((output) => output.path === `${WORKER_OUTFILE}.map`)?.text;
  return {
    code: file.text,
    bytes: file.contents.byteLength,
    gzipBytes: gzipSync(file.contents).byteLength,
    ...(map ? { map } : {}),
  };
}

async function writeWorkerBundle(outfile = WORKER_OUTFILE): Promise<WorkerBundle> {
  const bundle = await bundleWorker();
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(outfile, bundle.code);
  return bundle;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bundle = await writeWorkerBundle();
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(`${WORKER_OUTFILE}: ${kib(bundle.bytes)} raw, ${kib(bundle.gzipBytes)} gzipped`);
}
