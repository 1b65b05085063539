// A stop that comes while `npm start` is still starting a runtime that runs in a process of its
// own (deno here; Viceroy compiles for most of a minute first) stops that process too: none is
// left running on its port with no database behind it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commandLine, liveProcesses } from "../support/proc.ts";
import { runScript, watch } from "./processes.ts";

const isAlive = (pid: number) => liveProcesses().some((entry) => entry.pid === pid);

/** The first child of `parent` whose command line contains `command`, once there is one. */
async function childRunning(parent: number, command: string, timeoutMs = 60_000): Promise<number> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const child = liveProcesses().find((entry) => entry.parent === parent && commandLine(entry.pid).includes(command));
    if (child) return child.pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no ${command} child of ${parent} within ${timeoutMs} ms`);
}

async function goneWithin(pid: number, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !isAlive(pid);
}

describe("npm start stopped while its runtime starts", () => {
  it("stops the runtime's process too, and exits after closing the database", async () => {
    const dir = await mkdtemp(join(tmpdir(), "stop-starting-"));
    const start = runScript("dev/local-stack/start.ts", ["--runtime", "deno", "--port", "0"], {
      PGLITE_DATA_DIR: join(dir, "pglite"),
    });
    const run = watch(start);
    let deno: number | undefined;
    try {
      deno = await childRunning(start.pid!, "edge/deno/index.ts");
      start.kill("SIGTERM");
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain("Stopped: every request answered, database closed.");
      expect(await goneWithin(deno, 10_000), `deno (${deno}) outlived npm start:\n${run.output()}`).toBe(true);
    } finally {
      if (deno !== undefined && isAlive(deno)) process.kill(deno, "SIGKILL");
      if (start.exitCode === null) start.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
