// `npm start` and `npm run migrate` as real processes (node + the tsx loader, so the pid is the
// server itself, or `npm start` itself), for tests that kill, stop or race them.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Started {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | NodeJS.Signals | null>;
}

export interface RunOptions {
  /**
   * As `npm start` itself (npm relaying signals to the script's process), in a process group of
   * its own, so a test can stop it as Ctrl-C in a terminal does.
   */
  asNpmStart?: boolean;
}

/** `node --import tsx SCRIPT ARGS` from the project's root, so the pid is the script's own. */
export function runScript(script: string, args: string[], env: Record<string, string | undefined>): ChildProcess {
  return spawnFromRoot(process.execPath, ["--import", "tsx", script, ...args], env);
}

function spawnFromRoot(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  detached = false,
): ChildProcess {
  return spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached,
  });
}

/** The server's own pid under `npm start`: npm's only child (its script `exec`s the server). */
export function npmStartServerPid(npmPid: number): number {
  const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(npmPid)], { encoding: "utf8" }).trim();
  if (!/^\d+$/.test(children))
    throw new Error(`npm (${npmPid}) should have one child, the server; it has: ${children}`);
  return Number(children);
}

/** Collects a process' output and exit code. */
export function watch(child: ChildProcess) {
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  // npm, when signalled itself, may end by that signal once its script has exited.
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal)),
  );
  return { output: () => output, exited };
}

/** `npm start` on free ports; resolves once the API listens (rejects if it exits first). */
export async function startServer(
  env: Record<string, string | undefined>,
  args: string[] = [],
  options: RunOptions = {},
): Promise<Started> {
  const startArgs = ["--port", "0", ...args];
  const child = options.asNpmStart
    ? spawnFromRoot("npm", ["start", "--", ...startArgs], env, true)
    : runScript("dev/local-stack/start.ts", startArgs, env);
  const { output, exited } = watch(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`start timed out:\n${output()}`));
    }, 60_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output());
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout?.on("data", check);
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`start exited:\n${output()}`));
    });
  });
  return { child, url, output, exited };
}
