import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { RUNTIME_NAMES } from "../edge/runtimes.ts";
import { projectOf, testProjects } from "./projects.ts";

const ROOT = resolve(import.meta.dirname, "..");

describe("vitest projects", () => {
  const projects = testProjects(ROOT);

  it("put every test file in exactly one project", () => {
    const all = Object.values(projects).flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(
      expect.arrayContaining([
        "core/settings/settings.test.ts",
        "test/conformance/node.test.ts",
        "test/links/race.test.ts",
      ]),
    );
  });

  it("keep the database, subprocess and wasm suites out of the unit loop", () => {
    expect(projects.unit).toEqual(
      expect.arrayContaining(["core/settings/settings.test.ts", "edge/kv/memory.test.ts", "test/layout.test.ts"]),
    );
    expect(projects.integration).toEqual(
      expect.arrayContaining([
        "core/assets/routes.integration.test.ts",
        "edge/kv/workers-kv.integration.test.ts",
        "dev/support/deno-tests.integration.test.ts",
      ]),
    );
    expect(projects.fastly).toEqual(
      expect.arrayContaining([
        "test/conformance/fastly.test.ts",
        "test/conformance/schemathesis/fastly.test.ts",
        "dev/build/fastly.test.ts",
        "dev/launchers/fastly.test.ts",
        "edge/kv/fastly-kv-on-viceroy.test.ts",
      ]),
    );
    // The conformance suite and schemathesis, each once per runtime of edge/runtimes.ts; Fastly's
    // are in its own project, for its wasm build.
    const others = RUNTIME_NAMES.filter((name) => name !== "fastly");
    expect(projects.conformance).toEqual(
      [
        ...others.map((name) => `test/conformance/${name}.test.ts`),
        ...others.map((name) => `test/conformance/schemathesis/${name}.test.ts`),
      ].sort(),
    );
  });

  describe("classify files they have never seen, by name and folder alone", () => {
    it("in core/, edge/ and dev/: unit, unless named *.integration.test.ts", () => {
      expect(projectOf("core/pure.test.ts")).toBe("unit");
      expect(projectOf("edge/kv/fastly-like.test.ts")).toBe("unit");
      expect(projectOf("core/db.integration.test.ts")).toBe("integration");
      expect(projectOf("dev/tool/spawns.integration.test.ts")).toBe("integration");
      expect(projectOf("dev/build/fastly.test.ts")).toBe("fastly");
      expect(projectOf("edge/fastly/pure.test.ts")).toBe("unit");
      expect(projectOf("dev/launchers/fastly.test.ts")).toBe("fastly");
      expect(projectOf("edge/kv/fastly-kv-on-viceroy.test.ts")).toBe("fastly");
    });

    it("by folder under test/: new folders are integration, never unit", () => {
      for (const path of [
        "test/deploy/wrangler.test.ts",
        "test/local-stack/start.test.ts",
        "test/anything/pure.test.ts",
        "test/deploy/fastly.test.ts",
      ]) {
        expect(projectOf(path)).toBe("integration");
      }
      expect(projectOf("test/documents/races.test.ts")).toBe("races");
      expect(projectOf("test/conformance/workerd.test.ts")).toBe("conformance");
      expect(projectOf("test/conformance/fastly.test.ts")).toBe("fastly");
      expect(projectOf("test/conformance/schemathesis/fastly.test.ts")).toBe("fastly");
      expect(projectOf("test/conformance/schemathesis/node.test.ts")).toBe("conformance");
    });
  });
});
