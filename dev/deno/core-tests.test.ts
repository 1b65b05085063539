// core's unit tests, really executed by Deno (`deno test`), as part of `npm test`.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { denoCoreTestFiles, denoOnlyTestFiles, denoTestCommand } from "./core-tests.ts";
import { PROJECT_ROOT } from "../launchers/deno.ts";

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

describe("core unit tests and the Deno KV adapter under deno test", () => {
  const coreFiles = denoCoreTestFiles();
  const files = [...coreFiles, ...denoOnlyTestFiles()];

  it("selects core's in-memory test files, leaving the database ones to vitest, and the Deno-only tests", () => {
    expect(coreFiles).toEqual(expect.arrayContaining(["core/settings.test.ts", "core/auth.test.ts"]));
    expect(coreFiles.filter((file) => !file.startsWith("core/") || !file.endsWith(".test.ts"))).toEqual([]);
    expect(denoOnlyTestFiles()).toContain("edge/kv/deno-kv.deno-test.ts");
  });

  it("passes every selected file", async () => {
    const { command, args } = denoTestCommand(files);
    const { code, output } = await run(command, args);
    expect(output, output).toMatch(/^ok \| \d+ passed .*\| 0 failed/m);
    for (const file of files) expect(output).toContain(`from ./${file}`);
    expect(code, output).toBe(0);
  }, 240_000);
});
