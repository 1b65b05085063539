// Deployed entries run as their own processes here, started the way a platform starts them.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { listeningUrl } from "../../dev/launchers/deno.ts";

export interface ServerProcess {
  child: ChildProcess;
  /** Where it says it listens, as printed (the host may be 0.0.0.0). */
  url: string;
  /** The same port on the loopback address, to call it. */
  localUrl: string;
  exited: Promise<number | null>;
  stderr(): string;
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
  const child = spawn(command, args, { cwd, env: { ...baseEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
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
      const url = listeningUrl(line);
      if (!url) return;
      clearTimeout(timer);
      const localUrl = `http://127.0.0.1:${new URL(url).port}`;
      resolve({ child, url, localUrl, exited, stderr: () => stderr, stop });
    });
  });
}

/** Runs a command to its end (one that must not start serving). */
export function runToExit(command: string, args: string[], env: Record<string, string>, cwd?: string): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...baseEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), STARTUP_TIMEOUT_MS);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The parent's environment without any of the service's settings (they come from each test). */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(AUTH_|DATABASE_URL|NEON_|LINK_|HOST$|PORT$)/.test(name)) env[name] = value;
  }
  env.NO_COLOR = "1";
  return env;
}
