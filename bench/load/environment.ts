// What the benchmark runs against: one database (PGlite, or a scratch schema in DATABASE_URL's
// PostgreSQL) behind one Neon-compatible endpoint, in a thread of their own, and every selected
// runtime launched as it ships (node: its release, `release` in dev/launchers/index.ts). A runtime
// that cannot start is reported with the reason, not dropped.
import type { RuntimeName } from "../../dev/launchers/index.ts";
import { launchRuntime, type RunningRuntime } from "../../dev/launchers/index.ts";
import { isPostgresUrl } from "../../dev/local-stack/stack.ts";
import { createScratchSchema, serverVersion } from "../../dev/support/scratch-schema.ts";
import { SetupError } from "../lib/cli.ts";
import { channel, startTsWorker } from "../lib/ts-worker.ts";
import type { DatabaseRequest } from "./database-thread.ts";
import { type LocalTarget, localTarget } from "./platform.ts";
import type { TargetStatus } from "./summary.ts";

export interface BenchDatabase {
  /** What the runtimes are configured with. */
  databaseUrl: string;
  neonFetchEndpoint: string;
  description: string;
  /** The scratch schema's PostgreSQL URL for sessions of the bench's own (undefined on PGlite). */
  postgresUrl?: string;
  /** Statements the endpoint served since the last reset: database round trips. */
  statements(): Promise<number>;
  resetStatements(): Promise<void>;
  /** A statement straight to the database, never counted. */
  seed(query: string, params: string[]): Promise<void>;
  close(): Promise<void>;
}

/** `roundTripDelayMs`: how long the endpoint holds each round trip (the edge-to-Neon distance). */
export async function openBenchDatabase(databaseUrl: string | undefined, roundTripDelayMs = 0): Promise<BenchDatabase> {
  if (databaseUrl === undefined) return startDatabaseThread(undefined, "embedded PGlite (in memory)", roundTripDelayMs);
  if (!isPostgresUrl(databaseUrl)) throw new SetupError("DATABASE_URL must be a postgres:// or postgresql:// URL");
  const version = await serverVersion(databaseUrl);
  if (version instanceof Error) throw new SetupError(`PostgreSQL (DATABASE_URL) is unreachable: ${version.message}`);
  const schema = await createScratchSchema(databaseUrl, "bench");
  try {
    const db = await startDatabaseThread(
      schema.url,
      `PostgreSQL ${version} (DATABASE_URL), ${schema.description}`,
      roundTripDelayMs,
    );
    return { ...db, postgresUrl: schema.url, close: () => db.close().finally(() => schema.drop()) };
  } catch (error) {
    await schema.drop();
    throw error;
  }
}

/** The local stack (migrated database + Neon endpoint) in bench/load/database-thread.ts. */
async function startDatabaseThread(
  databaseUrl: string | undefined,
  description: string,
  roundTripDelayMs: number,
): Promise<BenchDatabase> {
  const worker = startTsWorker(new URL("./database-thread.ts", import.meta.url), { databaseUrl, roundTripDelayMs });
  const ready = await new Promise<{ databaseUrl: string; neonFetchEndpoint: string }>((resolve, reject) => {
    worker.once("error", reject);
    worker.once("message", (message: { ready: { databaseUrl: string; neonFetchEndpoint: string } }) =>
      resolve(message.ready),
    );
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  const call = channel<DatabaseRequest>(worker);
  return {
    ...ready,
    description,
    statements: () => call<number>({ op: "statements" }),
    resetStatements: () => call<void>({ op: "reset" }),
    seed: (query, params) => call<void>({ op: "seed", query, params }),
    async close() {
      await call<void>({ op: "close" }).catch(() => {});
      await worker.terminate();
    },
  };
}

/** A runtime the bench started, under its name in the results. */
export interface RunningTarget extends RunningRuntime {
  target: string;
}

/**
 * Launches each runtime in turn into `running` (filled as they start, so a cleanup during the
 * launches closes those already up); a failure becomes an "unavailable" status with its reason.
 * `named` says what each is called in the results (the traced twin of `--otel` is named apart).
 */
export async function launchRuntimes(
  names: readonly RuntimeName[],
  env: Record<string, string | undefined>,
  running: RunningTarget[],
  onStatus: (status: TargetStatus) => void,
  named: (runtime: RuntimeName) => LocalTarget = localTarget,
): Promise<{ statuses: TargetStatus[] }> {
  const statuses: TargetStatus[] = [];
  for (const name of names) {
    const started = performance.now();
    const target = named(name);
    let status: TargetStatus;
    try {
      const runtime = await launchRuntime(name, env, { port: 0, log: "file", release: true });
      running.push({ ...runtime, target: target.target });
      status = { ...target, available: true, startMs: Math.round(performance.now() - started) };
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
      status = { ...target, available: false, reason };
    }
    statuses.push(status);
    onStatus(status);
  }
  return { statuses };
}

/**
 * Starts each runtime's bare KV get (bench/measure/kv-baseline/) into `running`; returns its URL per
 * runtime, or why it could not start.
 */
export async function launchKvBaselines(
  names: readonly RuntimeName[],
  running: RunningRuntime[],
): Promise<Map<RuntimeName, string | Error>> {
  const { launchKvBaseline } = await import("../measure/kv-baseline/launch.ts");
  const urls = new Map<RuntimeName, string | Error>();
  for (const name of names) {
    try {
      const baseline = await launchKvBaseline(name);
      running.push({ runtime: name, ...baseline });
      urls.set(name, baseline.url);
    } catch (error) {
      urls.set(name, error instanceof Error ? error : new Error(String(error)));
    }
  }
  return urls;
}

/** Closes every runtime even when one of them fails to close. */
export async function closeRuntimes(running: readonly RunningRuntime[]): Promise<void> {
  await Promise.allSettled(running.map((runtime) => runtime.close()));
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Ctrl-C and SIGTERM end the run through `cleanup`, and no runtime process outlives the bench.
 * Miniflare installs signal handlers that exit at once, after stopping only workerd: that would
 * orphan the deno process and leave a DATABASE_URL scratch schema behind. So `takeOver()` (called
 * after each launch) puts the bench's handler back in sole charge; and on any exit, every
 * runtime's close() is started, whose first, synchronous step signals its child process.
 */
export function guardProcess(
  cleanup: () => Promise<void>,
  ...lists: readonly (readonly { close(): Promise<void> }[])[]
) {
  const onSignal = () => void cleanup().finally(() => process.exit(130));
  const onExit = () => {
    for (const runtime of lists.flat()) void runtime.close().catch(() => {});
  };
  const takeOver = () => {
    for (const signal of SIGNALS) {
      process.removeAllListeners(signal);
      process.on(signal, onSignal);
    }
  };
  takeOver();
  process.on("exit", onExit);
  return {
    takeOver,
    release() {
      for (const signal of SIGNALS) process.off(signal, onSignal);
      process.off("exit", onExit);
    },
  };
}
