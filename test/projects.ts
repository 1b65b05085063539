// Which vitest project runs a test file (vitest.config.ts), by where it is and how it is named,
// never by what it imports. `unit` is the fast loop: a `*.test.ts` in core/, edge/ or dev/ needs
// no database, no subprocess, no worker thread and no wasm; one that does is named
// `*.integration.test.ts`. Fastly's wasm on Viceroy (its build, launcher and conformance suites,
// each a `fastly.test.ts`, and an adapter's contract on Viceroy, `*-on-viceroy.test.ts`) is a
// project of its own. Everything under test/ and bench/ is integration unless it is conformance, a
// race suite or one of the tree's pure checks: folders added there later (slow by nature) never
// slow the fast loop.
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

type ProjectName = "unit" | "integration" | "conformance" | "races" | "fastly";

/** A test of core/, edge/ or dev/ that needs a database, a subprocess, a worker thread or workerd. */
export const INTEGRATION_SUFFIX = ".integration.test.ts";

/** test/ files that are pure checks of the tree, fast enough for the unit loop. */
const UNIT_IN_TEST = [
  "test/layout.test.ts",
  "test/import-direction.test.ts",
  "test/doc-paths.test.ts",
  "test/doc-problem-codes.test.ts",
  "test/projects.test.ts",
  "test/route-table.test.ts",
  "test/conformance/openapi-check.test.ts",
];
const RACES = [
  /^test\/.*\/races?\.test\.ts$/,
  /^test\/.*\/interleavings\.test\.ts$/,
  /^test\/counterexamples\//,
  /^test\/hardening\/soak\.test\.ts$/,
];
const FASTLY = [/^(dev|test\/conformance)\/(.+\/)?fastly\.test\.ts$/, /-on-viceroy\.test\.ts$/];
const TEST_ROOTS = ["core", "edge", "dev", "test", "bench"];

/** The one project of a test file, given its path relative to the project root. */
export function projectOf(path: string): ProjectName {
  if (UNIT_IN_TEST.includes(path)) return "unit";
  if (FASTLY.some((re) => re.test(path))) return "fastly";
  if (path.startsWith("test/conformance/")) return "conformance";
  if (RACES.some((re) => re.test(path))) return "races";
  if (path.startsWith("test/") || path.startsWith("bench/")) return "integration";
  return path.endsWith(INTEGRATION_SUFFIX) ? "integration" : "unit";
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
    projects[projectOf(path)].push(path);
  }
  for (const files of Object.values(projects)) files.sort();
  return projects;
}
