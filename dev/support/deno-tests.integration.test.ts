// The Deno-only tests, really executed by Deno (`deno test`), as part of `npm test`.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { kvContract } from "../../test/ports/kv-contract.ts";
import { PROJECT_ROOT } from "../launchers/deno.ts";
import { denoTestCommand, denoTestFiles } from "./deno-tests.ts";

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

describe("Deno-only tests under deno test", () => {
  it("finds the Deno KV adapter's tests", () => {
    expect(denoTestFiles()).toContain("edge/kv/deno-kv.test.deno.ts");
  });

  it("passes every file, the whole KV contract included", async () => {
    const files = denoTestFiles();
    const { command, args } = denoTestCommand(files);
    const { code, output } = await run(command, args);
    expect(output, output).toMatch(/^ok \| \d+ passed \(\d+ steps?\) \| 0 failed/m);
    const steps = Number(/^ok \| \d+ passed \((\d+) steps?\)/m.exec(output)![1]);
    expect(steps).toBeGreaterThanOrEqual(kvContract.length);
    for (const [name] of kvContract) expect(output).toContain(`${name} ... ok`);
    for (const file of files) expect(output).toContain(`from ./${file}`);
    expect(code, output).toBe(0);
  }, 120_000);
});
