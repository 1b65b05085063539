// package.json's `engines` is the Node version the guide's image and CI run: every production
// dependency, transitively, must declare that it runs there too, or the release image runs code
// its authors do not support (as @scalar/hono-api-reference, which wants Node 22, once did).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const readJson = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

/** Every installed package of the production tree, by folder. */
function productionPackageDirs(): string[] {
  const out = execFileSync("npm", ["ls", "--omit=dev", "--omit=optional", "--all", "--parseable"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return out.split("\n").filter(Boolean).slice(1);
}

/** Packages whose declared Node range leaves out some version the project's range allows. */
function excluding(projectRange: string, packages: { name: string; node?: string }[]): string[] {
  return packages
    .filter((p) => p.node !== undefined && !semver.subset(projectRange, p.node))
    .map((p) => `${p.name} wants node ${p.node}`);
}

describe("the Node version", () => {
  const projectRange: string = readJson(ROOT).engines.node;

  it("every production dependency supports the Node range package.json declares", () => {
    const packages = productionPackageDirs().map((dir) => {
      const manifest = readJson(dir);
      return { name: `${manifest.name}@${manifest.version}`, node: manifest.engines?.node };
    });
    expect(packages.length).toBeGreaterThan(10);
    expect(excluding(projectRange, packages)).toEqual([]);
  });

  it("a dependency that wants a later Node is named", () => {
    expect(excluding(">=20.19", [{ name: "a", node: ">=22" }, { name: "b", node: ">=18" }, { name: "c" }])).toEqual([
      "a wants node >=22",
    ]);
  });

  it("the guide's image runs a Node the range allows", () => {
    const guide = readFileSync(join(ROOT, "docs", "deploy.md"), "utf8");
    const images = [...guide.matchAll(/\bFROM node:(\d+)/g)].map((m) => Number(m[1]));
    expect(images.length).toBeGreaterThan(0);
    for (const major of images) expect(semver.intersects(projectRange, `${major}.x`), `node:${major}`).toBe(true);
  });
});
