import { defineConfig } from "vitest/config";
import { testProjects } from "./test/projects.ts";

// Five projects, each file in exactly one (test/projects.ts decides):
// unit (no database, subprocess, worker or wasm: `npm run test:unit`), integration (PGlite,
// PostgreSQL, workerd, deno, builds), conformance (one suite on Node, workerd and Deno), races
// (real-PostgreSQL concurrency proofs and the soak), fastly (the wasm build, served by Viceroy).
const projects = testProjects(import.meta.dirname);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: race suites saturate PostgreSQL on their own, so files run two at a time.
    maxWorkers: 2,
    // Servers under test log a JSON line per request: show them only for failing tests.
    silent: "passed-only",
    projects: Object.entries(projects).map(([name, include]) => ({
      extends: true,
      // Unit files touch no process-wide state (no mocks, timers or globals), so they share
      // threads and modules instead of paying a fresh process and import graph per file.
      test: {
        name,
        include,
        ...(name === "unit" ? { pool: "threads" as const, isolate: false } : {}),
        globalSetup: ["test/support/no-leftover-processes.ts"],
      },
    })),
  },
});
