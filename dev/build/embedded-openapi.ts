// The Fastly service serves the OpenAPI document made when its wasm is built, by the same generator
// over the same route table (core/openapi/document.ts), embedded as bytes with js-compute's
// `includeBytes`. In the wasm, the generator's code (with @valibot/to-json-schema) costs ~0.4 MB of
// memory snapshot, and what the capabilities say of their routes (core/<capability>/openapi.ts,
// read only by the generator) ~0.2 MB more; the document's bytes cost their size. Every other
// runtime generates it on first request; the Fastly suite checks that both are the same document.
import { basename, dirname, sep } from "node:path";
import type { Plugin } from "esbuild";
import { appWithoutDatabase } from "../app-without-database.ts";

/** The document as the Fastly app would serve it, generated here. */
export async function openApiJson(): Promise<string> {
  return (await appWithoutDatabase("fastly").request("/openapi.json")).text();
}

/**
 * esbuild: core/app.ts's generator becomes a reader of the embedded document, and each capability's
 * description of its routes (the `./openapi.ts` of core/<capability>/index.ts) an empty one.
 * `jsonPath` is relative to the directory js-compute runs in, where it reads the file at build time.
 */
export function embeddedOpenApi(jsonPath: string): Plugin {
  const namespace = "embedded-openapi";
  return {
    name: namespace,
    setup(build) {
      build.onResolve({ filter: /^\.\/openapi\/document\.ts$/ }, ({ importer }) =>
        importer.endsWith(`${sep}core${sep}app.ts`) ? { path: "openapi.json", namespace } : undefined,
      );
      build.onResolve({ filter: /^\.\/openapi\.ts$/ }, ({ importer }) =>
        basename(importer) === "index.ts" && basename(dirname(dirname(importer))) === "core"
          ? { path: "undescribed", namespace }
          : undefined,
      );
      build.onLoad({ filter: /^openapi\.json$/, namespace }, () => ({
        loader: "js",
        contents: [
          'import { includeBytes } from "fastly:experimental";',
          `const bytes = includeBytes(${JSON.stringify(jsonPath)});`,
          "export function openApiDocument() { return JSON.parse(new TextDecoder().decode(bytes)); }",
        ].join("\n"),
      }));
      // The names core/capability.ts's Capability reads from each capability's openapi.ts.
      build.onLoad({ filter: /^undescribed$/, namespace }, () => ({
        loader: "js",
        contents: "export const operations = {}, schemas = {};",
      }));
    },
  };
}
