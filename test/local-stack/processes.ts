// `npm start` and `npm run migrate` as real processes (node + the tsx loader, so the pid is the
// server itself), for tests that kill, stop or race them.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TEST_AUTH_SECRET } from "../support/tokens.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Started {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

export interface RunOptions {
  /**
   * Through the `tsx` command, as `npm start` runs it (a runner process relaying signals to the
   * script's), in a process group of its own, so a test can stop it as Ctrl-C in a terminal does.
   */
  asNpmStart?: boolean;
}

export function runScript(
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
  { asNpmStart = false }: RunOptions = {},
): ChildProcess {
  const [command, prefix] = asNpmStart ? [`${ROOT}node_modules/.bin/tsx`, []] : [process.execPath, ["--import", "tsx"]];
  return spawn(command, [...prefix, script, ...args], {
    cwd: ROOT,
    env: { ...process.env, AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: asNpmStart,
  });
}

/** Collects a process' output and exit code. */
export function watch(child: ChildProcess) {
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { output: () => output, exited };
}

/** `npm start` on free ports; resolves once the API listens (rejects if it exits first). */
export async function startServer(
  env: Record<string, string | undefined>,
  args: string[] = [],
  options: RunOptions = {},
): Promise<Started> {
  const child = runScript("dev/start.ts", ["--port", "0", ...args], env, options);
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
