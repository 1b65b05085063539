// The process table as Linux's /proc shows it: what the tests read to tell which processes they
// left behind (a zombie is gone already: it only waits for its parent to read its exit status).
import { readdirSync, readFileSync } from "node:fs";

export interface ProcessInfo {
  pid: number;
  parent: number;
  group: number;
  /** One letter: R running, S sleeping, Z zombie… */
  state: string;
}

export function readProc(pid: number, file: "cmdline" | "environ" | "stat"): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined; // gone meanwhile, or not ours to read
  }
}

/** Every live (not zombie) process of the machine. */
export function liveProcesses(): ProcessInfo[] {
  if (process.platform !== "linux") throw new Error("the process checks read /proc (Linux only)");
  const table: ProcessInfo[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    const stat = Number.isInteger(pid) ? readProc(pid, "stat") : undefined;
    if (!stat) continue;
    // "pid (command) state parent group …": the command may itself hold spaces and parentheses.
    const [state = "", parent, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state !== "Z") table.push({ pid, parent: Number(parent), group: Number(group), state });
  }
  return table;
}

export const commandLine = (pid: number) => (readProc(pid, "cmdline") ?? "").replaceAll("\0", " ").trim();
