// The run's last check (no-leftover-processes.ts) finds a process the tests left behind, however
// far down it was started, and only while it lives.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { processesMarked, TEST_RUN_VARIABLE } from "./no-leftover-processes.ts";

it("finds a grandchild carrying the run's marker, in a group of its own, until it is gone", async () => {
  const run = randomUUID();
  const shell = spawn("sh", ["-c", "sleep 30 & echo $!; wait"], {
    env: { ...process.env, [TEST_RUN_VARIABLE]: run },
    stdio: ["ignore", "pipe", "ignore"],
    detached: true,
  });
  const sleeper = Number(
    await new Promise<string>((resolve) => shell.stdout!.once("data", (data) => resolve(`${data}`))),
  );
  try {
    expect(processesMarked(run)).toEqual(expect.arrayContaining([shell.pid, sleeper]));
    expect(processesMarked(randomUUID())).toEqual([]);
  } finally {
    process.kill(-shell.pid!, "SIGKILL");
  }
  await expect.poll(() => processesMarked(run)).toEqual([]);
});
