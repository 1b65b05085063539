// Runs a bench/ script the way `npm run` does (node + tsx), in a child process of its own.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runScript(
  script: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<ScriptRun> {
  const childEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: ROOT, env: childEnv });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
