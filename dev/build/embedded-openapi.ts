// The Fastly service serves the OpenAPI document made when its wasm is built, by the same generator
// over the same route table (core/openapi/document.ts), embedded as bytes with js-compute's
// `includeBytes`. In the wasm, the generator's code (with @valibot/to-json-schema) costs ~0.4 MB of
// memory snapshot; the document's bytes cost their size. Every other runtime generates it on first
// request; the Fastly suite checks that both are the same document.
import { sep } from "node:path";
import type { Plugin } from "esbuild";
import { appWithoutDatabase } from "../app-without-database.ts";

/** The document as the Fastly app would serve it, generated here. */
export async function openApiJson(): Promise<string> {
  return (await appWithoutDatabase("fastly").request("/openapi.json")).text();
}

/**
 * esbuild: core/app.ts's generator becomes a reader of the embedded document. `jsonPath` is
 * relative to the directory js-compute runs in, where it reads the file at build time.
 */
export function embeddedOpenApi(jsonPath: string): Plugin {
  const namespace = "embedded-openapi";
  return {
    name: namespace,
    setup(build) {
      build.onResolve({ filter: /^\.\/openapi\/document\.ts$/ }, ({ importer }) =>
        importer.endsWith(`${sep}core${sep}app.ts`) ? { path: "openapi.json", namespace } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace }, () => ({
        loader: "js",
        contents: [
          'import { includeBytes } from "fastly:experimental";',
          `const bytes = includeBytes(${JSON.stringify(jsonPath)});`,
          "export function openApiDocument() { return JSON.parse(new TextDecoder().decode(bytes)); }",
        ].join("\n"),
      }));
    },
  };
}
