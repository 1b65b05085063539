// `npm run build:node`: the Node production entry as one ES module, dist/node/index.js. Packages
// stay imports, so it runs with `npm ci --omit=dev` (every import is a runtime dependency).

import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const NODE_ENTRY = fileURLToPath(new URL("../../edge/node/index.ts", import.meta.url));
const NODE_OUTFILE = fileURLToPath(new URL("../../dist/node/index.js", import.meta.url));

export async function buildNodeServer(outfile = NODE_OUTFILE): Promise<string> {
  await build({
    entryPoints: [NODE_ENTRY],
    outfile,
    bundle: true,
    packages: "external",
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "silent",
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await buildNodeServer());
}
