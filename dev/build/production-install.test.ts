// The production install as the lock file decides it, read without installing: what
// PRODUCTION_INSTALL puts beside a release (test/deploy/node.test.ts installs it and measures it).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./fastly.ts";
import { isTracingSdk, PRODUCTION_INSTALL_COMMAND, productionPackagesOfLock } from "./production-install.ts";

const readJson = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8"));
const lock = readJson("package-lock.json");
const packages = productionPackagesOfLock(lock);

describe("the production install", () => {
  it("holds package.json's dependencies and theirs: at most 25 packages besides the OpenTelemetry SDK", () => {
    expect(packages).toEqual(expect.arrayContaining(Object.keys(readJson("package.json").dependencies)));
    const own = packages.filter((name) => !isTracingSdk(name));
    expect(own.length, own.join(" ")).toBeLessThanOrEqual(25);
    expect(packages).toContain("@opentelemetry/sdk-trace");
    expect(packages).not.toContain("edge-race-free-bench");
  });

  it("leaves out the optional peers the lock holds for development (TypeScript, zod)", () => {
    for (const name of ["typescript", "zod"]) {
      expect(lock.packages[`node_modules/${name}`]).toMatchObject({ devOptional: true });
      expect(packages).not.toContain(name);
    }
  });

  it("is left out by npm's flags: dev, optional, devOptional, and a workspace's link", () => {
    const sample = {
      "": {},
      "node_modules/kept": {},
      "node_modules/kept/node_modules/nested": {},
      "node_modules/tool": { dev: true },
      "node_modules/binary": { optional: true },
      "node_modules/peer-for-tools": { devOptional: true },
      "node_modules/a-workspace": { link: true },
    };
    expect(productionPackagesOfLock({ packages: sample })).toEqual(["kept", "nested"]);
  });

  // deno.json's deploy section runs it too: test/deploy/deno-deploy.test.ts.
  it("is the command every step of the deploy guide runs", () => {
    const guide = readFileSync(join(ROOT, "docs", "deploy.md"), "utf8").replace(/\s+/g, " ");
    const installs = [...guide.matchAll(/npm ci --omit[^`#&]*/g)].map((match) => match[0].trim());
    expect(installs.length).toBeGreaterThanOrEqual(2);
    for (const install of installs) expect(install.startsWith(PRODUCTION_INSTALL_COMMAND), install).toBe(true);
  });
});
