// Which vitest project runs a test file (vitest.config.ts). `unit` is the fast loop: tests in
// core/, edge/ and dev/ that need no database, no subprocess, no worker thread and no wasm. A
// file counts as heavy when it, or any project file it imports (transitively), imports one of
// HEAVY_IMPORTS, so a new test lands in the right project without being listed anywhere.
// Everything under test/ is integration unless it is conformance or a race suite: folders added
// there later (slow by nature) never slow the fast loop.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

type ProjectName = "unit" | "integration" | "conformance" | "races" | "fastly";

/** Imports that mean a database, a subprocess, a worker thread, workerd or a wasm build. */
const HEAVY_IMPORTS = [
  /^@electric-sql\/pglite/,
  /^pg$/,
  /^miniflare$/,
  /^wrangler$/,
  /^esbuild$/,
  /^@fastly\//,
  /^(node:)?child_process$/,
  /^(node:)?worker_threads$/,
];

/** test/ files that are pure checks of the tree, fast enough for the unit loop. */
const UNIT_IN_TEST = [
  "test/layout.test.ts",
  "test/doc-paths.test.ts",
  "test/projects.test.ts",
  "test/route-table.test.ts",
  "test/conformance/openapi-check.test.ts",
];
const RACES = [
  /^test\/.*\/races?\.test\.ts$/,
  /^test\/assets\/interleavings\.test\.ts$/,
  /^test\/counterexamples\//,
  /^test\/hardening\/soak\.test\.ts$/,
];
const TEST_ROOTS = ["core", "edge", "dev", "test", "bench"];

const importPattern = /\bfrom\s+["']([^"']+)["']|\bimport\s*\(?\s*["']([^"']+)["']/g;
const importsOf = (source: string) => [...source.matchAll(importPattern)].map((m) => (m[1] ?? m[2])!);

/** Whether `file` (absolute) or anything it imports from the project reaches a heavy import. */
function isHeavy(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file) || !existsSync(file)) return false;
  seen.add(file);
  return importsOf(readFileSync(file, "utf8")).some((specifier) =>
    specifier.startsWith(".")
      ? isHeavy(resolve(dirname(file), specifier), seen)
      : HEAVY_IMPORTS.some((re) => re.test(specifier)),
  );
}

/** The one project of a test file, given its path relative to the project root. */
export function projectOf(path: string, root: string): ProjectName {
  if (UNIT_IN_TEST.includes(path)) return "unit";
  if (path.startsWith("test/conformance/")) return path.endsWith("/fastly.test.ts") ? "fastly" : "conformance";
  if (RACES.some((re) => re.test(path))) return "races";
  if (path.startsWith("test/") || path.startsWith("bench/")) return "integration";
  if (!isHeavy(join(root, path))) return "unit";
  return /(^|\/)fastly[-./]/.test(path) ? "fastly" : "integration";
}

function testFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules") return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFilesUnder(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Every test file of the tree, project-relative, grouped by project. */
export function testProjects(root: string): Record<ProjectName, string[]> {
  const projects: Record<ProjectName, string[]> = { unit: [], integration: [], conformance: [], races: [], fastly: [] };
  for (const file of TEST_ROOTS.flatMap((dir) => testFilesUnder(join(root, dir)))) {
    const path = relative(root, file);
    projects[projectOf(path, root)].push(path);
  }
  for (const files of Object.values(projects)) files.sort();
  return projects;
}
