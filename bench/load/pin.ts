// `npm run bench -- --pin`: the bench's own process (its load generator and database endpoint)
// on the first CPU, every process it started (the runtimes, their bare KV gets, the collector)
// on the others. Unpinned, Linux places a server one request at a time either on the client's
// core (no wake-up across cores) or on the other, and a runtime's latency moves with where it
// lands: the same node bare get answered in 170–190 µs in short turns and in 250–275 µs in long
// ones (docs/benchmarks.md). Pinned, client and servers are always apart, as a real client is.
// Linux only: affinities are set with util-linux's taskset.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { UsageError } from "../lib/cli.ts";

/** The CPU list each side is pinned to, as taskset reads it. */
export interface Pinning {
  bench: string;
  servers: string;
}

/** Refuses --pin in one line where it cannot work: one CPU, or no taskset. */
export function pinning(cpus = availableParallelism()): Pinning {
  if (cpus < 2) throw new UsageError(`--pin: needs 2 CPUs or more, this machine has ${cpus}`);
  try {
    execFileSync("taskset", ["--version"], { stdio: "ignore" });
  } catch {
    throw new UsageError("--pin: taskset is missing (util-linux; Linux only)");
  }
  return { bench: "0", servers: cpus === 2 ? "1" : `1-${cpus - 1}` };
}

/** Each process's parent, read from /proc (the command may hold spaces and parentheses). */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parentOf.set(Number(entry), ppid);
    } catch {
      // Gone since the listing.
    }
  }
  return parentOf;
}

/** Every process started by `root`, directly or not. */
export function descendants(root: number): number[] {
  const parentOf = parents();
  const found: number[] = [];
  const under = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (under.has(ppid) && !under.has(pid)) {
        under.add(pid);
        found.push(pid);
        grew = true;
      }
    }
  }
  return found;
}

/** Every thread of `pid` on `cpus`; threads it starts later inherit it. */
export function pinProcess(pid: number, cpus: string): void {
  execFileSync("taskset", ["--all-tasks", "--cpu-list", "--pid", cpus, String(pid)], { stdio: "ignore" });
}

/** The servers this process started on their CPUs, then this process on its own. */
export function pinBenchAndServers({ bench, servers }: Pinning): void {
  for (const pid of descendants(process.pid)) {
    try {
      pinProcess(pid, servers);
    } catch {
      // A process that ended meanwhile (a build step) needs no CPU.
    }
  }
  pinProcess(process.pid, bench);
}

/** What the report says of where client and servers ran. */
export const pinNote = (pin: Pinning | undefined): string =>
  pin
    ? `Pinned (--pin): the bench's process (load generator, database endpoint) on CPU ${pin.bench}, every server it started on CPU ${pin.servers}.`
    : "Not pinned: the system placed client and servers on the machine's cores as it chose (--pin keeps them apart).";
