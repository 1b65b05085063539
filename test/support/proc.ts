// The process table as Linux's /proc shows it: what the tests read to tell which processes they
// left behind (a zombie is gone already: it only waits for its parent to read its exit status).
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

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

/** The local addresses (`ip:port`, as /proc/net shows them: hex) of the TCP sockets `pids` listen on. */
export function listeningSockets(pids: number[]): { address: string; loopback: boolean }[] {
  const inodes = new Set(pids.flatMap(socketInodes));
  const sockets: { address: string; loopback: boolean }[] = [];
  for (const table of ["tcp", "tcp6"]) {
    for (const line of (readFileSafe(`/proc/net/${table}`) ?? "").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [address, state, inode] = [fields[1], fields[3], fields[9]];
      if (address && state === LISTEN && inode && inodes.has(inode))
        sockets.push({ address, loopback: isLoopback(address) });
    }
  }
  return sockets;
}

const LISTEN = "0A";

function socketInodes(pid: number): string[] {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  return fds.flatMap((fd) => {
    try {
      return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? [];
    } catch {
      return [];
    }
  });
}

/** 127.x.x.x (its bytes stored in reverse: …7F), ::1, or 127.x.x.x mapped into IPv6. */
export function isLoopback(address: string): boolean {
  const ip = address.split(":")[0] ?? "";
  if (ip.length === 8) return ip.endsWith("7F");
  return ip === "00000000000000000000000001000000" || (ip.startsWith("0000000000000000FFFF0000") && ip.endsWith("7F"));
}

function readFileSafe(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
