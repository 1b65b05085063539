// Suites that need a tool of the machine (PostgreSQL, Chromium, Viceroy) are skipped with a
// warning where it is missing, and fail under CI=true: CI never goes green by testing less.
import { describe, it } from "vitest";

/**
 * `describe` that runs when `missing` is undefined; otherwise `missing` (what is absent and how to
 * get it) is the warning of the skip, or the failure in CI.
 */
export function describeNeeding(tool: string, missing: string | undefined, name: string, fn: () => void): void {
  if (missing === undefined) return void describe(name, fn);
  if (process.env.CI === "true") {
    describe(name, () => {
      it(`needs ${tool}`, () => {
        throw new Error(`${tool} is required in CI: ${missing}`);
      });
    });
    return;
  }
  console.warn(`\n!!! ${missing}: SKIPPING "${name}". In CI this fails. !!!\n`);
  describe.skip(name, fn);
}
