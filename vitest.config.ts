import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["core/**/*.test.ts", "edge/**/*.test.ts", "dev/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: race suites saturate PostgreSQL on their own, so files run two at a time.
    maxWorkers: 2,
    // Servers under test log a JSON line per request: show them only for failing tests.
    silent: "passed-only",
  },
});
