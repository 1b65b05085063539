import type { RawSettings } from "../../core/settings.ts";
import { startNodeRuntime } from "./node.ts";

export type RuntimeName = "node" | "cloudflare" | "deno" | "fastly";

export interface RunningRuntime {
  runtime: RuntimeName;
  url: string;
  close(): Promise<void>;
}

type RuntimeLauncher = (
  env: RawSettings,
  options: { port?: number },
) => Promise<{
  url: string;
  close(): Promise<void>;
}>;

// Each runtime is started the way its users run it; the same launchers serve `npm start`,
// the conformance suite and the benchmark.
const launchers: Record<RuntimeName, RuntimeLauncher> = {
  node: startNodeRuntime,
  // Loaded on demand: Miniflare is heavy, and a node run should not pay for it.
  cloudflare: async (env, options) => (await import("./cloudflare.ts")).startCloudflareRuntime(env, options),
  deno: async (env, options) => (await import("./deno.ts")).startDenoRuntime(env, options),
  fastly: async (env, options) => (await import("./fastly.ts")).startFastlyRuntime(env, options),
};

export const runtimeNames = Object.keys(launchers) as RuntimeName[];

export async function launchRuntime(
  runtime: RuntimeName,
  env: RawSettings,
  options: { port?: number } = {},
): Promise<RunningRuntime> {
  return { runtime, ...(await launchers[runtime](env, options)) };
}

export function isRuntimeName(value: string): value is RuntimeName {
  return (runtimeNames as string[]).includes(value);
}
