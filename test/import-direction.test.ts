// The layout's direction, enforced (test/layout.test.ts holds what ships alone and stays
// runtime-blind; source = a .ts file that is not a test, *.test.ts or *.test.deno.ts):
// 5. Every .ts file of the repository imports only along core ← edge ← dev ← test, bench: a file
//    of core/, edge/ or dev/ imports its own folder and those to its left; test/ and bench/ may
//    import dev/, edge/ and core/ but never each other (what both need lives in dev/support/);
//    a root *.ts (a tool's configuration) may import any folder, and no folder imports a root
//    file; client/ stands apart (tests may import it). A test is test code: wherever it sits it
//    may import what test/ may, except beside the bench's code, where it keeps to bench/'s side.
// 6. No file of the repository (core/, edge/, dev/, bench/, test/, client/, tests included)
//    reaches itself through its imports, type imports included: every part can be read, and
//    changed, from its own imports down. What two files share lives in a module below both.
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  filesUnder,
  importCircles,
  importsOf,
  isTest,
  ROOT,
  rel,
  relativeImportsOf,
  target,
} from "./support/imports.ts";

/** Every folder of TypeScript the repository holds: what ships, what runs it here, its tests, the bench. */
const SOURCE_DIRS = ["core", "edge", "dev", "bench", "test", "client"];

describe("the repository has no import circle", () => {
  it.each(SOURCE_DIRS)("no file of %s/ reaches itself through its imports, type imports included", (dir) => {
    const files = SOURCE_DIRS.flatMap((root) => filesUnder(join(ROOT, root))).filter(
      (file) => file.endsWith(".ts") && !/[/\\](node_modules|dist)[/\\]/.test(file),
    );
    const circles = importCircles(files, relativeImportsOf);
    expect(circles.filter((circle) => circle.some((file) => file.startsWith(`${dir}/`)))).toEqual([]);
  });
});

/** The folders a file of each layer may import from; "" is the repository's root. */
const LAYERS: Record<string, readonly string[]> = {
  core: ["core"],
  edge: ["core", "edge"],
  client: ["client"],
  dev: ["core", "edge", "dev"],
  test: ["core", "edge", "client", "dev", "test"],
  bench: ["core", "edge", "dev", "bench"],
  "": ["core", "edge", "client", "dev", "test", "bench", ""],
};
const layerOf = (path: string) => (path.includes("/") ? path.slice(0, path.indexOf("/")) : "");

/** What the relative `specifiers` of the file at `path` (project-relative) import against the direction. */
function againstTheDirection(path: string, specifiers: readonly string[]): string[] {
  const layer = layerOf(path);
  const allowed = LAYERS[isTest(path) && layer !== "bench" ? "test" : layer];
  if (!allowed) return [`${path} is in no layer`];
  return specifiers.flatMap((specifier) => {
    const landing = target(join(ROOT, path), specifier);
    return landing === undefined || allowed.includes(layerOf(landing)) ? [] : [`imports ${landing}`];
  });
}

describe("imports go one way: core ← edge ← dev ← test, bench", () => {
  const rootFiles = readdirSync(ROOT).filter((name) => name.endsWith(".ts"));
  const files = [
    ...Object.keys(LAYERS)
      .filter(Boolean)
      .flatMap((dir) => filesUnder(join(ROOT, dir))),
    ...rootFiles,
  ]
    .map((file) => rel(resolve(ROOT, file)))
    .filter((file) => file.endsWith(".ts"));

  it("has every layer's files, the root's configuration among them", () => {
    for (const layer of Object.keys(LAYERS)) expect(files.some((file) => layerOf(file) === layer)).toBe(true);
  });

  it.each(files)("%s imports only along the direction", (file) => {
    expect(againstTheDirection(file, importsOf(join(ROOT, file)))).toEqual([]);
  });
});

describe("the checks themselves", () => {
  it("reject an import against the direction, one example per rule", () => {
    const refused = (path: string, specifier: string) => againstTheDirection(path, [specifier]);
    expect(refused("core/app.ts", "../edge/kv/memory.ts")).toEqual(["imports edge/kv/memory.ts"]);
    expect(refused("edge/deno/index.ts", "../../dev/local-stack/stack.ts")).toEqual([
      "imports dev/local-stack/stack.ts",
    ]);
    expect(refused("dev/build/node.ts", "../../test/support/harness.ts")).toEqual(["imports test/support/harness.ts"]);
    expect(refused("dev/build/node.ts", "../../bench/lib/cli.ts")).toEqual(["imports bench/lib/cli.ts"]);
    expect(refused("test/links/race.test.ts", "../../bench/lib/cli.ts")).toEqual(["imports bench/lib/cli.ts"]);
    expect(refused("bench/sync.ts", "../test/links/support.ts")).toEqual(["imports test/links/support.ts"]);
    expect(refused("bench/race.test.ts", "../test/support/harness.ts")).toEqual(["imports test/support/harness.ts"]);
    expect(refused("dev/local-stack/stack.ts", "../../vitest.config.ts")).toEqual(["imports vitest.config.ts"]);
    expect(refused("core/links/routes.test.ts", "../../bench/lib/cli.ts")).toEqual(["imports bench/lib/cli.ts"]);
    expect(refused("client/index.ts", "../core/app.ts")).toEqual(["imports core/app.ts"]);
    expect(refused("core/app.ts", "../client/index.ts")).toEqual(["imports client/index.ts"]);
  });

  it("find a circle, a type import closing it included, a file importing itself, and nothing where there is none", () => {
    const [a, b, c] = ["core/a.ts", "core/b.ts", "core/c.ts"].map((path) => join(ROOT, path)) as [
      string,
      string,
      string,
    ];
    const source: Record<string, string> = {
      [a]: 'import { b } from "./b.ts";',
      [b]: 'import type { C } from "./c.ts";',
      [c]: 'import type { A } from "./a.ts";',
    };
    const parsed = (file: string) =>
      ts.preProcessFile(source[file]!, true, true).importedFiles.map((i) => resolve(dirname(file), i.fileName));
    expect(importCircles([a, b, c], parsed)).toEqual([["core/a.ts", "core/b.ts", "core/c.ts"]]);
    source[c] = "export type C = 1;";
    expect(importCircles([a, b, c], parsed)).toEqual([]);
    source[a] = 'import { a } from "./a.ts";';
    expect(importCircles([a, b, c], parsed)).toEqual([["core/a.ts"]]);
  });

  it("let an import along the direction through", () => {
    const allowed = (path: string, specifier: string) => againstTheDirection(path, [specifier]);
    expect(allowed("edge/kv/memory.ts", "../../core/ports/kv.ts")).toEqual([]);
    expect(allowed("test/links/race.test.ts", "../../dev/support/tokens.ts")).toEqual([]);
    expect(allowed("bench/sync.ts", "../dev/support/tokens.ts")).toEqual([]);
    expect(allowed("core/links/routes.test.ts", "../../test/support/harness.ts")).toEqual([]);
    expect(allowed("vitest.config.ts", "./test/projects.ts")).toEqual([]);
    expect(allowed("dev/local-stack/stack.ts", "pg")).toEqual([]);
  });
});
