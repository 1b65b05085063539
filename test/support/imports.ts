// How the layout's checks (test/layout.test.ts, test/import-direction.test.ts) read the
// repository: its files, each file's imports as TypeScript parses them (type imports included),
// and the circles they close.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { DirectedGraph } from "graphology";
import { stronglyConnectedComponents } from "graphology-components";
import ts from "typescript";

export const ROOT = resolve(import.meta.dirname, "..", "..");

export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = resolve(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

export const rel = (file: string) => relative(ROOT, file);
/** A test file: *.test.ts, or *.test.deno.ts (run by Deno itself). */
export const isTest = (file: string) => /\.(test|test\.deno)\.ts$/.test(file);
export const importsOf = (file: string) =>
  ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles.map((i) => i.fileName);

/** Where a relative import lands, project-relative; undefined for a bare specifier. */
export function target(file: string, specifier: string): string | undefined {
  return specifier.startsWith(".") ? rel(resolve(dirname(file), specifier)) : undefined;
}

/** Where each relative import of a file lands, as an absolute path. */
export const relativeImportsOf = (file: string) =>
  importsOf(file).flatMap((specifier) => (specifier.startsWith(".") ? [resolve(dirname(file), specifier)] : []));

/** Files of `dir` reached from `roots` through relative imports that stay in `dir`. */
export function reachableFrom(roots: string[], dir: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    for (const landing of relativeImportsOf(file)) if (dirname(landing) === dir) visit(landing);
  };
  roots.forEach(visit);
  return seen;
}

/** The import circles among `files` (absolute paths): each a list of the files it joins, project-relative. */
export function importCircles(files: readonly string[], importsOfFile: (file: string) => string[]): string[][] {
  const graph = new DirectedGraph();
  for (const file of files) graph.mergeNode(file);
  for (const file of files) {
    for (const landing of importsOfFile(file)) if (graph.hasNode(landing)) graph.mergeEdge(file, landing);
  }
  // A strongly connected component of more than one file, or a file that imports itself, is a circle.
  return stronglyConnectedComponents(graph)
    .filter((component) => component.length > 1 || graph.hasEdge(component[0], component[0]))
    .map((component) => component.map(rel).sort());
}
