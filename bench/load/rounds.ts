// The bench's measured rounds: every runtime × operation phase, planned (seeded, primed) before
// it runs on the load-generator thread, with the statements the endpoint served counted.
import type { RunningRuntime, RuntimeName } from "../../dev/launchers/index.ts";
import { signToken } from "../../test/support/tokens.ts";
import { progress } from "../lib/cli.ts";
import { fixed } from "../lib/format.ts";
import { percentile } from "../lib/stats.ts";
import type { BenchDatabase } from "./environment.ts";
import { runInterleaved, type Sample, type SliceablePhase } from "./interleave.ts";
import type { LoadGenerator } from "./load-generator.ts";
import { type OperationContext, type OperationName, operations } from "./operations.ts";
import type { Measured } from "./report.ts";

export interface RoundSettings {
  requests: number;
  concurrency: number;
  rounds: number;
  warmup: number;
  operations: readonly OperationName[];
  timeLimitMs: number;
}

export interface Session {
  opts: RoundSettings;
  db: BenchDatabase;
  secret: string;
  load: LoadGenerator;
  /** Per runtime: its assets' current ETags. */
  etags: Map<string, Map<string, string>>;
  /** Per runtime: its bare KV get's URL, or why it did not start. */
  baselines: Map<RuntimeName, string | Error>;
}

/**
 * Measured in slices that take turns within each round (bench/load/interleave.ts): a busy moment
 * of the machine falls on both alike, so the app's KV hit over the bare KV get can be read round
 * by round. Measured one after the other, it fell on one of them and moved the ratio by 1.5×.
 */
const INTERLEAVED: readonly OperationName[] = ["kv-baseline", "link-hit"];
const INTERLEAVED_SLICES = 10;

/** Where an operation's requests go: the app, or the runtime's bare KV get. */
function targetUrl(session: Session, runtime: RunningRuntime, operation: OperationName): string | Error {
  if (operations[operation].target !== "baseline") return runtime.url;
  return session.baselines.get(runtime.runtime) ?? new Error("not started");
}

function contextFor(
  session: Session,
  runtime: RunningRuntime,
  url: string,
  tag: string,
  count: number,
): OperationContext {
  return {
    owner: runtime.runtime,
    tag: `${runtime.runtime}-${tag}`,
    count,
    concurrency: session.opts.concurrency,
    token: (claims) => signToken(claims, session.secret),
    seed: session.db.seed,
    call: (planned) =>
      fetch(new URL(planned.path, url), { method: planned.method, headers: planned.headers, body: planned.body }),
    etags: session.etags.get(runtime.runtime)!,
  };
}

/** Plans (seeds, primes) a phase, which then runs any share of its requests and counts statements. */
async function plan(
  session: Session,
  runtime: RunningRuntime,
  operation: OperationName,
  tag: string,
  count: number,
): Promise<SliceablePhase> {
  const url = targetUrl(session, runtime, operation);
  const context = contextFor(session, runtime, url instanceof Error ? "http://127.0.0.1:9" : url, tag, count);
  let requests: Awaited<ReturnType<(typeof operations)[OperationName]["plan"]>>;
  try {
    if (url instanceof Error) throw new Error(`the bare KV get did not start: ${url.message.split("\n")[0]}`);
    requests = await operations[operation].plan(context);
  } catch (error) {
    // A runtime that cannot even be primed (it died, say) shows as failed requests, not a crash.
    const reason = `setup failed: ${error instanceof Error ? error.message : String(error)}`;
    return {
      requests: count,
      run: async (from, to) => ({
        result: { latencies: [], errors: { [reason]: to - from }, wallMs: 0, etags: [...context.etags] },
        statements: 0,
      }),
    };
  }
  return {
    requests: requests.length,
    async run(from, to, timeLimitMs) {
      await session.db.resetStatements();
      const result = await session.load.run({
        baseUrl: url,
        requests: requests.slice(from, to),
        expect: operations[operation].expect,
        concurrency: session.opts.concurrency,
        timeLimitMs,
        etags: [...context.etags],
      });
      const statements = await session.db.statements();
      context.etags.clear();
      for (const [path, etag] of result.etags) context.etags.set(path, etag);
      return { result, statements };
    },
  };
}

async function measure(
  session: Session,
  runtime: RunningRuntime,
  operation: OperationName,
  tag: string,
  count: number,
): Promise<Sample> {
  const phase = await plan(session, runtime, operation, tag, count);
  return phase.run(0, phase.requests, session.opts.timeLimitMs);
}

/** The selected operations in order, the interleaved ones as one group where the first of them is. */
function groups(selected: readonly OperationName[]): OperationName[][] {
  const together = selected.filter((operation) => INTERLEAVED.includes(operation));
  if (together.length < 2) return selected.map((operation) => [operation]);
  return selected.flatMap((operation) =>
    operation === together[0] ? [together] : together.includes(operation) ? [] : [[operation]],
  );
}

async function measureGroup(
  session: Session,
  runtime: RunningRuntime,
  group: readonly OperationName[],
  round: number,
): Promise<Sample[]> {
  const { requests, timeLimitMs } = session.opts;
  if (group.length === 1) return [await measure(session, runtime, group[0]!, `r${round}`, requests)];
  const phases: SliceablePhase[] = [];
  for (const operation of group) phases.push(await plan(session, runtime, operation, `r${round}`, requests));
  return runInterleaved(phases, { round, slices: INTERLEAVED_SLICES, timeLimitMs });
}

export async function runRounds(session: Session, running: readonly RunningRuntime[]): Promise<Measured[]> {
  const { opts } = session;
  for (const runtime of running) {
    session.etags.set(runtime.runtime, new Map());
    for (const operation of opts.operations) {
      const url = targetUrl(session, runtime, operation);
      if (url instanceof Error) continue; // its phases report why
      await operations[operation].setup?.(contextFor(session, runtime, url, "setup", 0)).catch((error: unknown) => {
        progress(`${runtime.runtime}: setup of ${operation} failed (its requests will fail): ${String(error)}`);
      });
    }
    if (opts.warmup > 0) {
      for (const operation of opts.operations) await measure(session, runtime, operation, "warm", opts.warmup);
      progress(`warmed up ${runtime.runtime}`);
    }
  }
  const measured: Measured[] = [];
  for (let round = 1; round <= opts.rounds; round++) {
    // Rotated each round: no runtime always goes first, on a cooler or busier machine.
    const order = running.map((_, i) => running[(i + round - 1) % running.length]!);
    for (const runtime of order) {
      for (const group of groups(opts.operations)) {
        const samples = await measureGroup(session, runtime, group, round);
        group.forEach((operation, i) => {
          const { result, statements } = samples[i]!;
          measured.push({ runtime: runtime.runtime, operation, round, result, statements });
          const done = result.latencies.length;
          const errors = Object.values(result.errors).reduce((sum, n) => sum + n, 0);
          progress(
            `round ${round}/${opts.rounds}  ${runtime.runtime.padEnd(10)} ${operations[operation].label.padEnd(22)} ` +
              `${String(done).padStart(5)} req  ${fixed(done / (result.wallMs / 1000), 0).padStart(6)} req/s  ` +
              `p50 ${fixed(percentile(result.latencies, 50), 1)} ms  errors ${errors}  round trips/req ${fixed(statements / Math.max(done, 1), 2)}`,
          );
        });
      }
    }
  }
  return measured;
}
