// The layout's boundaries, enforced: what ships (core/, edge/, client/) never reaches into what
// only runs it here, and core/ and client/ stay runtime-blind.
// That core/ and client/ use Web-standard APIs only is the compiler's to check: they type-check
// without any runtime's types (core/tsconfig.json, client/tsconfig.json, `npm run typecheck`).
// This file checks what a compiler cannot see.
//
// The rules, exactly (source = a .ts file that is not a test, *.test.ts or *.test.deno.ts):
// 1. A core/ source imports only core/ files and the runtime dependencies of package.json,
//    never a driver or server; it names no runtime in code.
// 2. An edge/ source imports only core/ and edge/ files, runtime dependencies and runtime
//    built-in modules (node:, cloudflare:, fastly:): never dev/, test/, bench/ or a dev tool.
// 3. edge/<runtime>/ (every folder of edge/ but kv/, neon/ and rate-limit/, which hold one port
//    adapter per file, and migrate/, the release migrator) is flat and holds only its entry
//    (index.ts, or server.ts for Node's listener), its settings reader (settings.ts), its bindings
//    (bindings.ts), and the modules those import; next to them only their tests, type
//    declarations (*.d.ts) and tsconfig.json.
// 4. A client/ source (the typed client the package exports) imports only client/ files and the
//    dependencies of client/package.json, and names no runtime: it runs wherever its user's code does.
// Rules 5 and 6, which way imports go and that none closes a circle, are test/import-direction.test.ts.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { dependenciesOf, packageOf } from "../dev/support/packages.ts";
import { RUNTIME_NAMES, RUNTIMES } from "../edge/runtimes.ts";
import {
  filesUnder,
  importsOf,
  isTest,
  ROOT,
  reachableFrom,
  rel,
  relativeImportsOf,
  target,
} from "./support/imports.ts";

const RUNTIME_DEPENDENCIES = dependenciesOf(join(ROOT, "package.json"));
const CLIENT_DEPENDENCIES = dependenciesOf(join(ROOT, "client", "package.json"));
/** The OpenTelemetry SDK, a package of its own that only edge/telemetry/ imports. */
const TRACING_DEPENDENCIES = dependenciesOf(join(ROOT, "edge", "telemetry", "package.json"));
/** Runtime dependencies that tie code to one runtime or driver: edge/ only. */
const EDGE_ONLY_DEPENDENCIES = ["@hono/node-server", "@neondatabase/serverless", "postgres"];
/** The folders of edge/ that are no runtime: port adapters, one per file, and the release migrator. */
const SHARED_EDGE_DIRS = ["kv", "neon", "rate-limit", "migrate", "telemetry"];
const RUNTIME_ROOT_FILES = ["index.ts", "server.ts", "settings.ts", "bindings.ts"];

const isSource = (file: string) => file.endsWith(".ts") && !file.endsWith(".d.ts") && !isTest(file);

/** What a file's imports break: relative ones outside `allowedDirs`, bare ones outside `allowedBare`. */
function importViolations(file: string, allowedDirs: string[], allowedBare: (specifier: string) => boolean): string[] {
  return importsOf(file).flatMap((specifier) => {
    const landing = target(file, specifier);
    if (landing === undefined) return allowedBare(specifier) ? [] : [`imports ${specifier}`];
    return allowedDirs.some((dir) => landing.startsWith(`${dir}/`)) ? [] : [`imports ${landing}`];
  });
}

// Identifiers and string literals only: comments (not part of the syntax tree) may explain which
// runtime a choice was made for. A runtime's API (`process`, `Buffer`, `Deno.env`) does not
// compile in core/ or client/ at all.
const RUNTIME_WORDS = /^(node|cloudflare|workerd|miniflare|wrangler|deno|fastly|viceroy|bun)$/i;

function codeWords(source: string): string[] {
  const words: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node)) words.push(node.text);
    else if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node))
      words.push(...node.text.split(/[^A-Za-z]+/));
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile("file.ts", source, ts.ScriptTarget.Latest, true));
  return words;
}

function runtimeNamesIn(source: string): string[] {
  return [...new Set(codeWords(source).filter((word) => RUNTIME_WORDS.test(word)))];
}

const coreBare = (specifier: string) =>
  RUNTIME_DEPENDENCIES.includes(packageOf(specifier)) && !EDGE_ONLY_DEPENDENCIES.includes(packageOf(specifier));
const clientBare = (specifier: string) => CLIENT_DEPENDENCIES.includes(packageOf(specifier));
const edgeBare = (specifier: string) =>
  RUNTIME_DEPENDENCIES.includes(packageOf(specifier)) || /^(node|cloudflare|fastly):/.test(specifier);

describe("core/ is runtime-blind", () => {
  const files = filesUnder(join(ROOT, "core")).filter(isSource);

  it("has source files to check", () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((file) => [rel(file), file]))("%s imports only core/ and runtime dependencies", (_name, file) => {
    expect(importViolations(file, ["core"], coreBare)).toEqual([]);
  });

  it.each(files.map((file) => [rel(file), file]))("%s names no runtime", (_name, file) => {
    expect(runtimeNamesIn(readFileSync(file, "utf8"))).toEqual([]);
  });
});

describe("core/ depends downward", () => {
  // What two capabilities share (idempotency, background jobs, problems) lives below them in a
  // folder of its own: a capability reads, and can be changed, without another one.
  const capabilityDirs = importsOf(join(ROOT, "core", "capabilities.ts")).flatMap((specifier) =>
    specifier.endsWith("/index.ts") ? [dirname(rel(resolve(ROOT, "core", specifier)))] : [],
  );

  it("knows the capabilities from core/capabilities.ts", () => {
    expect(capabilityDirs).toEqual(expect.arrayContaining(["core/assets", "core/documents", "core/links"]));
  });

  it.each(capabilityDirs)("%s/ imports no other capability", (dir) => {
    const files = filesUnder(join(ROOT, dir)).filter(isSource);
    const reached = files.flatMap((file) => relativeImportsOf(file).map(rel));
    const others = capabilityDirs.filter((other) => other !== dir);
    expect(reached.filter((path) => others.some((other) => path.startsWith(`${other}/`)))).toEqual([]);
  });
});

describe("core/'s machinery depends only downward", () => {
  // The runner is given the capabilities' jobs by whoever composes the app (core/app.ts, edge/instance.ts).
  it("core/background/ imports no capability, nor the list of them", () => {
    const files = filesUnder(join(ROOT, "core", "background")).filter(isSource);
    const reached = files.flatMap((file) => relativeImportsOf(file).map(rel));
    expect(
      reached.filter((path) => /^core\/(assets|documents|health|links)\/|^core\/capabilities\.ts$/.test(path)),
    ).toEqual([]);
  });
});

describe("edge/ ships alone", () => {
  const files = filesUnder(join(ROOT, "edge")).filter(isSource);

  it.each(files.map((file) => [rel(file), file]))("%s imports nothing from dev/, test/ or bench/", (_name, file) => {
    const tracing = rel(file).startsWith("edge/telemetry/");
    const bare = (specifier: string) =>
      edgeBare(specifier) || (tracing && TRACING_DEPENDENCIES.includes(packageOf(specifier)));
    expect(importViolations(file, ["core", "edge"], bare)).toEqual([]);
  });

  // Neon's protocol belongs to its driver (@neondatabase/serverless): nothing here speaks it.
  it.each(files.map((file) => [rel(file), file]))("%s writes none of Neon's HTTP headers itself", (_name, file) => {
    expect(readFileSync(file, "utf8")).not.toMatch(/Neon-(Connection-String|Raw-Text-Output|Array-Mode|Batch-)/i);
  });

  const runtimeDirs = readdirSync(join(ROOT, "edge")).filter(
    (name) => !SHARED_EDGE_DIRS.includes(name) && statSync(join(ROOT, "edge", name)).isDirectory(),
  );

  it("has one folder per runtime of edge/runtimes.ts", () => {
    expect(runtimeDirs.sort()).toEqual([...RUNTIME_NAMES].sort());
  });

  // What a runtime of the list brings besides its folder: its entry, its KV store, its launcher
  // and its deploy test.
  it.each(RUNTIME_NAMES)("%s has its entry, KV store, launcher and deploy test", (runtime) => {
    const { entry, kvStore } = RUNTIMES[runtime];
    const paths = [entry, kvStore, `dev/launchers/${runtime}.ts`, `test/deploy/${runtime}.test.ts`];
    expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it.each(runtimeDirs)("edge/%s/ holds only its entry, settings reader, bindings and what they import", (runtime) => {
    const dir = join(ROOT, "edge", runtime);
    const names = readdirSync(dir);
    const reached = reachableFrom(RUNTIME_ROOT_FILES.map((name) => join(dir, name)).filter(existsSync), dir);
    const strays = names.filter((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return true;
      if (name === "tsconfig.json" || name.endsWith(".d.ts") || isTest(name)) return false;
      return !reached.has(path);
    });
    expect(strays).toEqual([]);
  });
});

// package.json's dependencies are what a production install holds: what ships imports each one,
// and a package only development, the tests or client/ use is a development dependency.
describe("package.json's dependencies", () => {
  const shipped = ["core", "edge"].flatMap((dir) => filesUnder(join(ROOT, dir))).filter(isSource);
  const imported = new Set(
    shipped
      .flatMap(importsOf)
      .filter((specifier) => !specifier.startsWith("."))
      .map(packageOf),
  );

  it.each(RUNTIME_DEPENDENCIES)("%s is imported by core/ or edge/", (name) => {
    expect(imported.has(name)).toBe(true);
  });
});

describe("client/ ships alone", () => {
  const files = filesUnder(join(ROOT, "client")).filter(isSource);

  it.each(files.map((file) => [rel(file), file]))(
    "%s imports only client/ and its package's dependencies",
    (_, file) => {
      expect(importViolations(file, ["client"], clientBare)).toEqual([]);
    },
  );

  it.each(files.map((file) => [rel(file), file]))("%s names no runtime", (_name, file) => {
    expect(runtimeNamesIn(readFileSync(file, "utf8"))).toEqual([]);
  });
});

describe("the checks themselves", () => {
  it("catch a runtime's name and a driver, but not a comment", () => {
    const sample = 'import { x } from "node:fs";\n// on Deno too\nconst r = "fastly"; Deno.env;';
    expect(runtimeNamesIn(sample)).toEqual(["node", "fastly", "Deno"]);
    expect(coreBare("node:fs")).toBe(false);
    expect(coreBare("@neondatabase/serverless")).toBe(false); // a driver: edge/neon/ only
    expect(coreBare("@hono/node-server")).toBe(false);
    expect(coreBare("hono/http-exception")).toBe(true);
    expect(coreBare("miniflare")).toBe(false);
  });

  it("catch an edge file reaching into dev/", () => {
    const file = join(ROOT, "edge", "deno", "index.ts");
    expect(target(file, "../../dev/local-stack/stack.ts")).toBe("dev/local-stack/stack.ts");
    expect(edgeBare("fastly:kv-store")).toBe(true);
    expect(edgeBare("miniflare")).toBe(false);
  });
});
