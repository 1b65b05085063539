// vitest globalSetup of every project: a process a test started (a server, a CLI, whatever they
// spawn in turn) must be gone when the run ends. Every such process inherits a marker in its
// environment, this run's own; at the end any process still carrying it fails the run, after
// being killed so that it does not keep a port or a CPU.
import { randomUUID } from "node:crypto";
import { commandLine, liveProcesses, readProc } from "./proc.ts";

export const TEST_RUN_VARIABLE = "EDGE_RACE_FREE_TEST_RUN";
/** How long the processes of the last tests get to finish exiting before they count. */
const EXIT_WINDOW_MS = 5_000;

export default function markTestProcesses(): () => Promise<void> {
  const run = thisRun();
  return async () => {
    const deadline = Date.now() + EXIT_WINDOW_MS;
    let left = processesMarked(run);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = processesMarked(run);
    }
    if (left.length === 0) return;
    const listing = left.map((pid) => `  ${pid} ${commandLine(pid)}`).join("\n");
    for (const pid of left) killQuietly(pid);
    // vitest reports an error thrown here but still exits 0: the exit code is set as well.
    process.exitCode = 1;
    throw new Error(`processes started by the tests outlived them (now killed):\n${listing}`);
  };
}

/**
 * One marker for the whole run, whichever project's setup comes first; one inherited from an
 * outer run (a test that runs vitest) is replaced, so that the outer run's processes never count.
 */
function thisRun(): string {
  const owner = `${process.pid}-`;
  const inherited = process.env[TEST_RUN_VARIABLE];
  if (inherited?.startsWith(owner)) return inherited;
  const run = `${owner}${randomUUID()}`;
  process.env[TEST_RUN_VARIABLE] = run;
  return run;
}

/** Live processes other than this one and its test workers whose environment holds `run`. */
export function processesMarked(run: string): number[] {
  const marker = `${TEST_RUN_VARIABLE}=${run}`;
  return liveProcesses()
    .filter(({ pid, parent }) => pid !== process.pid && !(parent === process.pid && isTestWorker(pid)))
    .filter(({ pid }) => readProc(pid, "environ")?.split("\0").includes(marker))
    .map(({ pid }) => pid);
}

/** vitest's own workers: this process' children running its pool. */
const isTestWorker = (pid: number) => commandLine(pid).includes("vitest");

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
}
