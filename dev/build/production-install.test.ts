// The production install as the lock file decides it, read without installing: what
// PRODUCTION_INSTALL_COMMAND puts beside a release (test/deploy/node.test.ts installs it and measures it).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TRACING_INSTALL_COMMAND } from "../../edge/telemetry/load.ts";
import { ROOT } from "./fastly.ts";
import { PRODUCTION_INSTALL_COMMAND, productionPackagesOfLock } from "./production-install.ts";

const readJson = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8"));
const lock = readJson("package-lock.json");
const packages = productionPackagesOfLock(lock);

describe("the production install", () => {
  it("holds package.json's dependencies and theirs: at most 25 packages, of OpenTelemetry its API alone", () => {
    expect(packages).toEqual(expect.arrayContaining(Object.keys(readJson("package.json").dependencies)));
    expect(packages.length, packages.join(" ")).toBeLessThanOrEqual(25);
    expect(packages.filter((name) => name.startsWith("@opentelemetry/"))).toEqual(["@opentelemetry/api"]);
    expect(packages).not.toContain("edge-race-free-bench");
  });

  it("leaves out the tracing SDK, which the tracing install adds as its workspace pins it", () => {
    const { dependencies } = readJson("edge/telemetry/package.json");
    expect(Object.keys(dependencies)).toContain("@opentelemetry/sdk-trace");
    for (const name of Object.keys(dependencies)) {
      expect(packages).not.toContain(name);
      expect(lock.packages[`node_modules/${name}`]).toMatchObject({ version: dependencies[name] });
    }
  });

  it("leaves out the optional peers the lock holds for development (TypeScript, zod)", () => {
    for (const name of ["typescript", "zod"]) {
      expect(lock.packages[`node_modules/${name}`]).toMatchObject({ devOptional: true });
      expect(packages).not.toContain(name);
    }
  });

  it("is what the root's dependencies need, found as Node finds them, not what optional peers or workspaces need", () => {
    const sample = {
      "": { dependencies: { app: "1" } },
      "node_modules/app": {
        dependencies: { shared: "1", nested: "1" },
        peerDependencies: { needed: "1", typescript: "5" },
        peerDependenciesMeta: { typescript: { optional: true } },
      },
      "node_modules/app/node_modules/nested": { dependencies: { shared: "2" } },
      "node_modules/app/node_modules/nested/node_modules/shared": {},
      "node_modules/shared": {},
      "node_modules/needed": {},
      "node_modules/typescript": {},
      "node_modules/a-workspace-dependency": {},
      workspace: { dependencies: { "a-workspace-dependency": "1" } },
    };
    expect(productionPackagesOfLock({ packages: sample }).sort()).toEqual(
      ["app", "nested", "needed", "shared", "shared"].sort(),
    );
  });

  // deno.json's deploy section runs it too: test/deploy/deno-deploy.test.ts.
  it("is, with the tracing install, the command every step of the deploy guide runs", () => {
    const guide = readFileSync(join(ROOT, "docs", "deploy.md"), "utf8").replace(/\s+/g, " ");
    const installs = [...guide.matchAll(/npm ci --omit[^`#&]*/g)].map((match) => match[0].trim());
    const runs = (command: string) => installs.filter((install) => install.startsWith(command)).length;
    expect(runs(PRODUCTION_INSTALL_COMMAND)).toBeGreaterThanOrEqual(2);
    expect(runs(TRACING_INSTALL_COMMAND)).toBeGreaterThanOrEqual(1);
    expect(runs(PRODUCTION_INSTALL_COMMAND) + runs(TRACING_INSTALL_COMMAND), installs.join("\n")).toBe(installs.length);
  });
});
