// Suites that need a tool the machine may lack (Chromium, schemathesis) are skipped with a warning
// where it is missing, and fail under CI=true: CI never goes green by testing less.
import { existsSync } from "node:fs";
import { describe, it } from "vitest";

export interface RequiredTool {
  name: string;
  /** Where the suites run it from. */
  path: string;
  /** How to get it there, as the messages say it. */
  install: string;
}

/** `describe` for suites that need `tool`: skipped with a warning without it, failing in CI. */
export function describeWithTool(tool: RequiredTool, name: string, fn: () => void): void {
  if (existsSync(tool.path)) return void describe(name, fn);
  if (process.env.CI === "true") {
    describe(name, () => {
      it(`needs ${tool.name}`, () => {
        throw new Error(`${tool.name} is required in CI but ${tool.path} is missing. ${tool.install}.`);
      });
    });
    return;
  }
  console.warn(
    `\n!!! ${tool.name} is not at ${tool.path}: SKIPPING "${name}". ${tool.install} to run it. In CI this fails. !!!\n`,
  );
  describe.skip(name, fn);
}
