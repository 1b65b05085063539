// `npm start -- --runtime cloudflare,fastly`: several runtimes side by side over one database, one
// port each, the way several CDNs serve one API over one Neon database. Each keeps its own KV cache
// and syncs the shared link change feed into it.
import type { RawSettings } from "../../core/settings/settings.ts";
import {
  isRuntimeName,
  launchRuntime,
  type RunningRuntime,
  type RuntimeName,
  runtimeNames,
} from "../launchers/index.ts";

/** The runtimes of a comma-separated list, each once, in order; an error names what is wrong. */
export function parseRuntimeList(text: string): RuntimeName[] {
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const unknown = names.filter((name) => !isRuntimeName(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(
      `Unknown runtime "${unknown.join(",") || text}": choose from ${runtimeNames.join(", ")} (a comma-separated list).`,
    );
  }
  return [...new Set(names)] as RuntimeName[];
}

/** Starts each runtime on `basePort`, `basePort + 1`, … (0: free ports); on a failure stops those started. */
export async function launchRuntimes(
  runtimes: readonly RuntimeName[],
  env: RawSettings,
  basePort: number,
): Promise<RunningRuntime[]> {
  const started: RunningRuntime[] = [];
  try {
    for (const [index, runtime] of runtimes.entries()) {
      started.push(await launchRuntime(runtime, env, { port: basePort === 0 ? 0 : basePort + index }));
    }
    return started;
  } catch (error) {
    await closeRuntimes(started);
    throw error;
  }
}

/** Stops runtimes in reverse order of start. */
export async function closeRuntimes(runtimes: readonly RunningRuntime[]): Promise<void> {
  for (const runtime of [...runtimes].reverse()) await runtime.close();
}
