// esbuild, for the Fastly wasm: a package the service needs only on some requests is kept in the
// script as text and compiled on its first call. js-compute snapshots the engine after it has
// parsed the whole script, and each byte of parsed JavaScript costs ~17 bytes of snapshot, lazy
// or not (docs/benchmarks.md, "The wasm's size"); a string costs its length. The package itself is
// unchanged: the same code, bundled by esbuild, run by the engine's own compiler when first needed.
import { build, type ImportKind, type Plugin } from "esbuild";

/** A package's import path and the functions the service calls from it. */
export interface DeferredPackage {
  specifier: string;
  functions: readonly string[];
  /**
   * Modules it imports that it must share with the service, being stateful (a `Symbol` that
   * keys a request's data): taken from the service's bundle instead of bundled again.
   */
  shared?: readonly string[];
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
      plugin.onLoad({ filter: /.*/, namespace }, async ({ path, pluginData }) => {
        const deferred = bySpecifier.get(path)!;
        const { resolveDir } = pluginData;
        return {
          loader: "js",
          contents: loaderModule(deferred, await bundledSource(deferred, resolveDir)),
          resolveDir,
        };
      });
    },
  };
}

/** The package as one minified script whose completion value is its exports. */
async function bundledSource({ specifier, shared = [] }: DeferredPackage, resolveDir: string): Promise<string> {
  const result = await build({
    stdin: { contents: `export * from ${JSON.stringify(specifier)};`, resolveDir },
    plugins: [takenFromService(shared, resolveDir)],
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

/**
 * esbuild: an import of one of `specifiers`, however the package spells it (a relative path
 * inside it), is left to the `require` the script is compiled with.
 */
function takenFromService(specifiers: readonly string[], resolveDir: string): Plugin {
  const resolving = { resolving: true };
  return {
    name: "taken-from-service",
    setup(plugin) {
      if (specifiers.length === 0) return;
      const resolve = (path: string, options: { resolveDir: string; kind: ImportKind; importer?: string }) =>
        plugin.resolve(path, { ...options, pluginData: resolving }).then((result) => result.path);
      let files: Promise<Map<string, string>> | undefined;
      plugin.onResolve({ filter: /.*/ }, async ({ path, pluginData, resolveDir: from, kind, importer }) => {
        if (pluginData === resolving) return undefined;
        files ??= Promise.all(
          specifiers.map(async (specifier) => [await resolve(specifier, { resolveDir, kind }), specifier] as const),
        ).then((entries) => new Map(entries));
        const specifier = (await files).get(await resolve(path, { resolveDir: from, kind, importer }));
        return specifier ? { path: specifier, external: true } : undefined;
      });
    },
  };
}

function loaderModule({ functions, shared = [] }: DeferredPackage, source: string): string {
  return [
    ...shared.map((specifier, i) => `import * as shared${i} from ${JSON.stringify(specifier)};`),
    `const shared = { ${shared.map((specifier, i) => `${JSON.stringify(specifier)}: shared${i}`).join(", ")} };`,
    "let compiled;",
    `const load = () => (compiled ??= new Function("require", ${JSON.stringify(source)})((specifier) => shared[specifier]));`,
    ...functions.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
  ].join("\n");
}
