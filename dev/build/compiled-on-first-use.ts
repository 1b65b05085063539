// esbuild, for the Fastly wasm: a package the service needs only on some requests is kept in the
// script as text and compiled on its first call. js-compute snapshots the engine after it has
// parsed the whole script, and each byte of parsed JavaScript costs ~17 bytes of snapshot, lazy
// or not (docs/benchmarks.md, "The wasm's size"); a string costs its length. The package itself is
// unchanged: the same code, bundled by esbuild, run by the engine's own compiler when first needed.
import { build, type Plugin } from "esbuild";

/** A package's import path and the functions the service calls from it. */
export interface DeferredPackage {
  specifier: string;
  functions: readonly string[];
}

/** Replaces each listed package by functions that compile it on their first call. */
export function compiledOnFirstUse(packages: readonly DeferredPackage[]): Plugin {
  const namespace = "compiled-on-first-use";
  const bySpecifier = new Map(packages.map((deferred) => [deferred.specifier, deferred]));
  return {
    name: namespace,
    setup(plugin) {
      plugin.onResolve({ filter: /.*/ }, ({ path, namespace: from, resolveDir }) =>
        from !== namespace && bySpecifier.has(path) ? { path, namespace, pluginData: { resolveDir } } : undefined,
      );
      plugin.onLoad({ filter: /.*/, namespace }, async ({ path, pluginData }) => ({
        loader: "js",
        contents: loaderModule(bySpecifier.get(path)!, await bundledSource(path, pluginData.resolveDir)),
      }));
    },
  };
}

/** The package as one minified script whose completion value is its exports. */
async function bundledSource(specifier: string, resolveDir: string): Promise<string> {
  const result = await build({
    stdin: { contents: `export * from ${JSON.stringify(specifier)};`, resolveDir },
    bundle: true,
    write: false,
    format: "iife",
    globalName: "exported",
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    minify: true,
    logLevel: "silent",
  });
  return `${result.outputFiles[0]!.text}\nreturn exported;`;
}

function loaderModule({ functions }: DeferredPackage, source: string): string {
  return [
    "let compiled;",
    `const load = () => (compiled ??= new Function(${JSON.stringify(source)})());`,
    ...functions.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
  ].join("\n");
}
