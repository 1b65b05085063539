// Runs a bench/ script the way `npm run` does (node + tsx), in a child process of its own.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

export interface BenchRun<Result> extends ScriptRun {
  /** The folder given as `--out`; the caller removes it. */
  out: string;
  /** The `<name>.json` the script wrote there. */
  result: Result;
}

/**
 * `bench/<name>.ts` with `args`, writing into a fresh folder (`--out`), and the `<name>.json` it
 * wrote there. A run that exits non-zero throws with its stderr, and leaves no folder behind.
 */
export async function runBenchScript<Result>(
  name: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<BenchRun<Result>> {
  const out = await mkdtemp(join(tmpdir(), `${name}-`));
  const run = await runScript(`bench/${name}.ts`, [...args, "--out", out], env);
  if (run.code !== 0) {
    await rm(out, { recursive: true, force: true });
    throw new Error(`bench/${name}.ts exited ${run.code}:\n${run.stderr}`);
  }
  const result = JSON.parse(await readFile(join(out, `${name}.json`), "utf8")) as Result;
  return { ...run, out, result };
}
