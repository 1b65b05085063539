import type * as v from "valibot";
import type { RawSettings } from "../../core/settings/settings.ts";
import { WORKERS_SETTINGS } from "../../edge/cloudflare/settings.ts";
import { DENO_SETTINGS } from "../../edge/deno/settings.ts";
import { NODE_SETTINGS } from "../../edge/node/settings.ts";
import { isRuntimeName, RUNTIME_NAMES, type RuntimeName } from "../../edge/runtimes.ts";
import type { ServerLog } from "./child-server.ts";
import { startNodeRelease, startNodeRuntime } from "./node.ts";
import type { KvEntries } from "./planted-kv.ts";
import { findViceroy, VICEROY_MISSING } from "./viceroy.ts";

export { isRuntimeName, type RuntimeName };

export interface RunningRuntime {
  runtime: RuntimeName;
  url: string;
  close(): Promise<void>;
}

interface LaunchOptions {
  /** 0 picks a free port. */
  port?: number;
  /**
   * Where a runtime in a process of its own (deno, Viceroy, the node release) writes its log
   * (child-server.ts says why the benchmark wants "file"): node in this process logs in it, and
   * workerd's output goes through Miniflare.
   */
  log?: ServerLog;
  /** Entries the runtime's KV store holds before its first request (planted-kv.ts); not with `release`. */
  kvEntries?: KvEntries;
  /**
   * Node as it ships (the benchmark): the release build in a process of its own, not this process's
   * TypeScript under tsx, whose keep-names (every closure made per request names itself) costs a
   * KV hit ~40 µs. Node's alone: the other runtimes already run what ships (the Workers bundle,
   * Deno's TypeScript, the Fastly wasm).
   */
  release?: boolean;
}

type RuntimeLauncher = (
  env: RawSettings,
  options: LaunchOptions,
) => Promise<{
  url: string;
  close(): Promise<void>;
}>;

// Each runtime of edge/runtimes.ts is started the way its users run it; the same launchers serve
// `npm start`, the conformance suite and the benchmark (node there with `release`).
const launchers: Record<RuntimeName, RuntimeLauncher> = {
  node: (env, options) => (options.release ? startNodeRelease(env, options) : startNodeRuntime(env, options)),
  // Loaded on demand: Miniflare is heavy, and a node run should not pay for it.
  cloudflare: async (env, options) => (await import("./cloudflare.ts")).startCloudflareRuntime(env, options),
  deno: async (env, options) => (await import("./deno.ts")).startDenoRuntime(env, options),
  fastly: async (env, options) => (await import("./fastly.ts")).startFastlyRuntime(env, options),
};

export const runtimeNames = RUNTIME_NAMES;

/**
 * Each runtime's own settings beside core's (edge/<runtime>/settings.ts): `npm start` checks them
 * before it starts anything, as core's, rather than leave them to the runtime once the database runs.
 */
export const RUNTIME_SETTINGS: Record<RuntimeName, v.GenericSchema | undefined> = {
  node: NODE_SETTINGS,
  cloudflare: WORKERS_SETTINGS,
  deno: DENO_SETTINGS,
  fastly: undefined,
};

/** The one line saying how to install what `runtime` needs and this machine lacks, or undefined. */
export function missingRuntime(runtime: RuntimeName): string | undefined {
  return runtime === "fastly" && !findViceroy() ? VICEROY_MISSING : undefined;
}

export async function launchRuntime(
  runtime: RuntimeName,
  env: RawSettings,
  options: LaunchOptions = {},
): Promise<RunningRuntime> {
  return { runtime, ...(await launchers[runtime](localScope(env), options)) };
}

/**
 * What runs here is the local stack: AUTH_SECRET signs on this machine only, so it needs no
 * issuer or audience (a deployment refuses AUTH_SECRET without AUTH_SECRET_SCOPE; docs/deploy.md).
 */
const localScope = (env: RawSettings): RawSettings =>
  env.AUTH_SECRET && !env.AUTH_SECRET_SCOPE ? { ...env, AUTH_SECRET_SCOPE: "local" } : env;
