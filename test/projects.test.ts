import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
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
        "core/assets/routes.test.ts",
        "edge/kv/workers-kv.test.ts",
        "dev/support/deno-tests.test.ts",
      ]),
    );
    expect(projects.fastly).toEqual(
      expect.arrayContaining([
        "test/conformance/fastly.test.ts",
        "test/conformance/schemathesis/fastly.test.ts",
        "dev/launchers/fastly.test.ts",
      ]),
    );
    // One suite per runtime of edge/runtimes.ts, and schemathesis on node; Fastly's are in its own
    // project, for its wasm build.
    expect(projects.conformance).toEqual(
      [
        ...RUNTIME_NAMES.filter((name) => name !== "fastly").map((name) => `test/conformance/${name}.test.ts`),
        "test/conformance/schemathesis/node.test.ts",
      ].sort(),
    );
  });

  describe("classify files they have never seen", () => {
    const root = mkdtempSync(join(tmpdir(), "projects-"));
    const write = (path: string, source: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    };
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it("by what they import, transitively", () => {
      write("test/support/db.ts", 'import pg from "pg";\n');
      write("core/pure.test.ts", 'import { it } from "vitest";\nimport { x } from "./x.ts";\n');
      write("core/x.ts", "export const x = 1;\n");
      write("core/db.test.ts", 'import { db } from "../test/support/db.ts";\n');
      write("dev/build/fastly-probe.test.ts", 'import { Worker } from "node:worker_threads";\n');
      write("dev/tool.test.ts", 'const { spawn } = await import("node:child_process");\n');
      expect(projectOf("core/pure.test.ts", root)).toBe("unit");
      expect(projectOf("core/db.test.ts", root)).toBe("integration");
      expect(projectOf("dev/build/fastly-probe.test.ts", root)).toBe("fastly");
      expect(projectOf("dev/tool.test.ts", root)).toBe("integration");
    });

    it("by folder under test/: new folders are integration, never unit", () => {
      for (const path of [
        "test/deploy/wrangler.test.ts",
        "test/local-stack/start.test.ts",
        "test/anything/pure.test.ts",
      ]) {
        expect(projectOf(path, root)).toBe("integration");
      }
      expect(projectOf("test/documents/races.test.ts", root)).toBe("races");
    });
  });
});
