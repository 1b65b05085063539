// Deployed entries run as their own processes here, started the way a platform starts them. Each
// runs in a process group of its own, as a container's processes do: stopping it stops what it
// started as well (`deno task` runs `deno run`, `npx` runs its command).
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { listeningEventUrl } from "../../dev/launchers/child-server.ts";
import { listeningSockets, liveProcesses } from "../support/proc.ts";

export interface ServerProcess {
  child: ChildProcess;
  /** Where it says it listens, as printed (the host may be 0.0.0.0). */
  url: string;
  /** The same port on the loopback address, to call it. */
  localUrl: string;
  exited: Promise<number | null>;
  stderr(): string;
  /** Kills its whole process group and waits until none of it is left. */
  stop(): Promise<void>;
}

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

const STARTUP_TIMEOUT_MS = 90_000;

/** Starts a server and resolves once it logs its `listening` line (JSON with a `url`). */
export function startServerProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<ServerProcess> {
  const child = spawnGroup(command, args, env, cwd);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async () => {
    killGroup(child);
    await exited;
    await groupGone(child);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => void stop().then(() => reject(new Error(`no listening line; stderr: ${stderr}`))),
      STARTUP_TIMEOUT_MS,
    );
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening; stderr: ${stderr}`));
    });
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const url = listeningEventUrl(line);
      if (!url) return;
      clearTimeout(timer);
      const localUrl = `http://127.0.0.1:${new URL(url).port}`;
      const exposed = listeningSockets(groupMembers(child)).filter((socket) => !socket.loopback);
      if (exposed.length > 0) {
        void stop().then(() => reject(new Error(`a test server must listen on loopback only: ${url}`)));
        return;
      }
      resolve({ child, url, localUrl, exited, stderr: () => stderr, stop });
    });
  });
}

/** Runs a command to its end (one that must not start serving). */
export function runToExit(command: string, args: string[], env: Record<string, string>, cwd?: string): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawnGroup(command, args, env, cwd);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => killGroup(child), STARTUP_TIMEOUT_MS);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      // What it started may still be exiting (or have been left behind): the group goes too.
      killGroup(child);
      void groupGone(child).then(() => resolve({ code, stdout, stderr }), reject);
    });
  });
}

function spawnGroup(command: string, args: string[], env: Record<string, string>, cwd?: string): ChildProcess {
  const options: SpawnOptions = {
    cwd,
    env: { ...baseEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  };
  return spawn(command, args, options);
}

/** SIGKILL to every process of the child's group (the child leads it: its pid is the group's). */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error; // ESRCH: nobody left
  }
}

const GROUP_EXIT_TIMEOUT_MS = 5_000;

/** Resolves once no process of the child's group is left; rejects if one outlives SIGKILL. */
async function groupGone(child: ChildProcess): Promise<void> {
  const deadline = Date.now() + GROUP_EXIT_TIMEOUT_MS;
  while (groupAlive(child)) {
    if (Date.now() > deadline) throw new Error(`process group ${child.pid} still has processes`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const groupMembers = (child: ChildProcess) =>
  liveProcesses()
    .filter(({ group }) => group === child.pid)
    .map(({ pid }) => pid);
const groupAlive = (child: ChildProcess) => groupMembers(child).length > 0;

/** The parent's environment without any of the service's settings (they come from each test). */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(AUTH_|DATABASE_URL|NEON_|LINK_|HOST$|PORT$)/.test(name)) env[name] = value;
  }
  env.NO_COLOR = "1";
  return env;
}
