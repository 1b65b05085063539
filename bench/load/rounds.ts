// The bench's measured rounds: every target × operation phase, planned (seeded, primed) before
// it runs on the load-generator thread, with the statements the endpoint served counted when the
// database is the bench's own.

import { setTimeout as sleep } from "node:timers/promises";
import { percentile } from "../../dev/support/stats.ts";
import { progress } from "../lib/cli.ts";
import type { PhaseClock } from "../lib/eta.ts";
import { fixed } from "../lib/format.ts";
import type { TokenSource } from "../lib/tokens.ts";
import { budgetedFetch, budgetSpent, type RequestBudget } from "./budget.ts";
import type { BenchDatabase } from "./environment.ts";
import { runInterleaved, type Sample, type SliceablePhase } from "./interleave.ts";
import type { LoadGenerator } from "./load-generator.ts";
import { type Made, type OperationContext, type OperationName, operations } from "./operations.ts";
import type { Measured } from "./summary.ts";

/** What is benchmarked: a runtime the bench started, or a deployment given by its URL. */
export interface Target {
  name: string;
  url: string;
}

/** What the run keeps per target: its assets' current ETags, and what it made there. */
export interface TargetState {
  etags: Map<string, string>;
  made: Made;
}

export interface RoundSettings {
  requests: number;
  concurrency: number;
  /** Set: the open model at this many requests per second per target and operation. */
  ratePerSecond?: number;
  rounds: number;
  warmup: number;
  operations: readonly OperationName[];
  timeLimitMs: number;
  /** Where the run is, for the time left on each progress line. */
  clock?: PhaseClock;
}

export interface Session {
  opts: RoundSettings;
  /** The run's tenant: every tenant it uses starts with it. */
  tenant: string;
  tokens: TokenSource;
  /** The bench's own database, when it started the runtimes; absent for deployments. */
  db?: Pick<BenchDatabase, "seed" | "statements" | "resetStatements">;
  load: LoadGenerator;
  budget: RequestBudget;
  /** Per target, filled by runRounds. */
  state: Map<string, TargetState>;
  /** Per runtime: its bare KV get's URL, or why it did not start. */
  baselines: Map<string, string | Error>;
  /**
   * `--otel`: per target, the same runtime with tracing on. Each phase of the two is measured in
   * slices that take turns, so that the traced p50 over the untraced one can be read round by round.
   */
  twins?: Map<string, Target>;
}

/**
 * Measured in slices that take turns within each round (bench/load/interleave.ts): a busy moment
 * of the machine falls on both alike, so the app's KV hit over the bare KV get can be read round
 * by round. Measured one after the other, it fell on one of them and moved the ratio by 1.5×.
 */
const INTERLEAVED: readonly OperationName[] = ["kv-baseline", "link-hit"];
const INTERLEAVED_SLICES = 10;

/** Where an operation's requests go: the app, or the runtime's bare KV get. */
function targetUrl(session: Session, target: Target, operation: OperationName): string | Error {
  if (operations[operation].target !== "baseline") return target.url;
  return session.baselines.get(target.name) ?? new Error("not started");
}

/** A target's state, made on first use. */
export function stateOf(session: Pick<Session, "state">, target: Target): TargetState {
  let state = session.state.get(target.name);
  if (!state) session.state.set(target.name, (state = { etags: new Map(), made: { links: [] } }));
  return state;
}

function contextFor(session: Session, target: Target, url: string, tag: string, count: number): OperationContext {
  const send = budgetedFetch(session.budget);
  const { etags, made } = stateOf(session, target);
  return {
    owner: target.name,
    tag: `${target.name}-${tag}`,
    tenant: session.tenant,
    count,
    concurrency: session.opts.concurrency,
    tokens: session.tokens,
    seed: session.db?.seed,
    call: (planned) =>
      send(new URL(planned.path, url), { method: planned.method, headers: planned.headers, body: planned.body }),
    etags,
    made,
  };
}

/** Plans (seeds, primes) a phase, which then runs any share of its requests and counts statements. */
async function plan(
  session: Session,
  target: Target,
  operation: OperationName,
  tag: string,
  count: number,
): Promise<SliceablePhase> {
  const url = targetUrl(session, target, operation);
  const context = contextFor(session, target, url instanceof Error ? "http://127.0.0.1:9" : url, tag, count);
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
        result: { latencies: [], errors: { [reason]: to - from }, timings: [], wallMs: 0, etags: [...context.etags] },
        statements: 0,
      }),
    };
  }
  return {
    requests: requests.length,
    async run(from, to, timeLimitMs) {
      // What earlier requests (priming, the phase before) left running must not count here.
      if (session.db) await settledStatements(session.db);
      await session.db?.resetStatements();
      const granted = session.budget.grant(to - from);
      const result = await session.load.run({
        baseUrl: url,
        requests: requests.slice(from, from + granted),
        expect: operations[operation].expect,
        concurrency: session.opts.concurrency,
        ratePerSecond: session.opts.ratePerSecond,
        timeLimitMs,
        etags: [...context.etags],
      });
      if (granted < to - from) {
        const reason = budgetSpent(session.budget.flag);
        result.errors[reason] = (result.errors[reason] ?? 0) + to - from - granted;
      }
      const statements = session.db ? await settledStatements(session.db) : Number.NaN;
      context.etags.clear();
      for (const [path, etag] of result.etags) context.etags.set(path, etag);
      return { result, statements };
    },
  };
}

async function measure(
  session: Session,
  target: Target,
  operation: OperationName,
  tag: string,
  count: number,
): Promise<Sample> {
  const phase = await plan(session, target, operation, tag, count);
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

/** `group`'s phases on each of `targets` (a target, or it and its twin), one Sample each, in that order. */
async function measureGroup(
  session: Session,
  targets: readonly Target[],
  group: readonly OperationName[],
  round: number,
): Promise<Sample[]> {
  const { requests, timeLimitMs } = session.opts;
  if (group.length === 1 && targets.length === 1)
    return [await measure(session, targets[0]!, group[0]!, `r${round}`, requests)];
  const phases: SliceablePhase[] = [];
  for (const target of targets)
    for (const operation of group) phases.push(await plan(session, target, operation, `r${round}`, requests));
  return runInterleaved(phases, { round, slices: INTERLEAVED_SLICES, timeLimitMs });
}

/** Each operation's setup on every target, then its warm-up (unmeasured requests), target by target. */
export async function prepareTargets(session: Session, targets: readonly Target[]): Promise<void> {
  const { opts } = session;
  for (const target of targets) {
    for (const operation of opts.operations) {
      const url = targetUrl(session, target, operation);
      if (url instanceof Error) continue; // its phases report why
      await operations[operation].setup?.(contextFor(session, target, url, "setup", 0)).catch((error: unknown) => {
        progress(`${target.name}: setup of ${operation} failed (its requests will fail): ${String(error)}`);
      });
    }
    if (opts.warmup > 0) {
      for (const operation of opts.operations) await measure(session, target, operation, "warm", opts.warmup);
      progress(`warmed up ${target.name}${opts.clock?.step() ?? ""}`);
    }
  }
}

export async function runRounds(session: Session, targets: readonly Target[]): Promise<Measured[]> {
  const { opts } = session;
  const measured: Measured[] = [];
  const twinNames = new Set([...(session.twins?.values() ?? [])].map((twin) => twin.name));
  for (let round = 1; round <= opts.rounds; round++) {
    // Rotated each round: no target always goes first, on a cooler or busier machine.
    const order = targets.map((_, i) => targets[(i + round - 1) % targets.length]!);
    for (const target of order) {
      if (twinNames.has(target.name)) continue; // measured beside its untraced runtime
      const twin = session.twins?.get(target.name);
      const side = twin ? [target, twin] : [target];
      for (const group of groups(opts.operations)) {
        const samples = await measureGroup(session, side, group, round);
        const phases = side.flatMap((measuredTarget) => group.map((operation) => ({ measuredTarget, operation })));
        phases.forEach(({ measuredTarget, operation }, i) => {
          const { result, statements } = samples[i]!;
          measured.push({ target: measuredTarget.name, operation, round, result, statements });
          const done = result.latencies.length;
          const errors = Object.values(result.errors).reduce((sum, n) => sum + n, 0);
          progress(
            `round ${round}/${opts.rounds}  ${measuredTarget.name.padEnd(10)} ${operations[operation].label.padEnd(22)} ` +
              `${String(done).padStart(5)} req  ${fixed(done / (result.wallMs / 1000), 0).padStart(6)} req/s  ` +
              `p50 ${fixed(percentile(result.latencies, 50), 1)} ms  errors ${errors}  round trips/req ${fixed(statements / Math.max(done, 1), 2)}${opts.clock?.step() ?? ""}`,
          );
        });
      }
    }
  }
  return measured;
}

/** How long no statement may arrive before a phase's count is read, and the longest wait for that. */
const QUIET_MS = 25;
const SETTLE_LIMIT_MS = 2_000;

/**
 * The statements served once none has arrived for a moment: what a request leaves running after
 * its answer (a lookup's confirming read, core/links/write-back.ts) counts for its phase, not the next.
 */
async function settledStatements(db: Pick<BenchDatabase, "statements">): Promise<number> {
  let count = await db.statements();
  for (let waited = 0; waited < SETTLE_LIMIT_MS; waited += QUIET_MS) {
    await sleep(QUIET_MS);
    const later = await db.statements();
    if (later === count) break;
    count = later;
  }
  return count;
}
