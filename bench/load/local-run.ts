// The runtimes side by side on one computer: one database behind the Neon-compatible endpoint,
// every selected runtime started as it ships (environment.ts), each runtime's bare KV get,
// and what only the bench's own database allows (round trips counted, the naive write, the
// endpoint's overhead).
import { randomBytes } from "node:crypto";
import type { RunningRuntime, RuntimeName } from "../../dev/launchers/index.ts";
import { type Collector, SPAN_KIND_SERVER, startCollector } from "../../dev/support/collector.ts";
import { createNeonSql } from "../../edge/neon/neon-sql.ts";
import { muteStdout, progress } from "../lib/cli.ts";
import { secretTokens } from "../lib/tokens.ts";
import { endpointOverheadNote, measureEndpointOverhead } from "../measure/endpoint-overhead.ts";
import type { RequestBudget } from "./budget.ts";
import {
  closeRuntimes,
  guardProcess,
  launchKvBaselines,
  launchRuntimes,
  openBenchDatabase,
  type RunningTarget,
} from "./environment.ts";
import { type LoadGenerator, startLoadGenerator } from "./load-generator.ts";
import { measureNaiveWrite, naiveWriteNote } from "./naive-write.ts";
import { type Pinning, pinBenchAndServers, pinNote } from "./pin.ts";
import { localTarget, TRACED_SUFFIX, tracedTarget } from "./platform.ts";
import { describeLoad, type RunOutcome } from "./results.ts";
import { measureRun } from "./run.ts";
import type { RunSettings } from "./run-settings.ts";
import type { TargetStatus } from "./summary.ts";
import { probeUsage } from "./usage-probe.ts";

export interface LocalSettings extends RunSettings {
  runtimes: RuntimeName[];
  dbRttMs: number;
  /** Each runtime also started with tracing on, exporting to a collector the bench starts. */
  otel: boolean;
  /** The CPUs the bench and the servers are pinned to (--pin). */
  pin?: Pinning;
}

export async function runOnLocalRuntimes(opts: LocalSettings, budget: RequestBudget): Promise<RunOutcome> {
  const db = await openBenchDatabase(process.env.DATABASE_URL || undefined, opts.dbRttMs);
  progress(`Database: ${db.description}`);
  const secret = randomBytes(32).toString("base64url");
  // The runtimes log one line per request, as in production; printed, 10 000 lines would bury
  // the progress and time the terminal. They are produced, and dropped here.
  const unmute = muteStdout();
  const running: RunningTarget[] = [];
  const baselineServers: RunningRuntime[] = [];
  let load: LoadGenerator | undefined;
  let collector: Collector | undefined;
  /** Server spans the collector received: with --otel, that the traced twins were traced. */
  let serverSpans: number | undefined;
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      try {
        await load?.close();
        await closeRuntimes([...running, ...baselineServers]);
        serverSpans = collector?.spans().filter((span) => span.kind === SPAN_KIND_SERVER).length;
        await collector?.stop();
        await db.close();
      } finally {
        unmute();
      }
    })());
  const guard = guardProcess(cleanup, running, baselineServers);
  try {
    const sql = createNeonSql({ databaseUrl: db.databaseUrl, fetchEndpoint: db.neonFetchEndpoint });
    const usageProbe = await probeUsage(sql, opts.operations, db.seed, secret);
    const env = {
      ...process.env,
      AUTH_SECRET: secret,
      DATABASE_URL: db.databaseUrl,
      NEON_FETCH_ENDPOINT: db.neonFetchEndpoint,
      LINK_CACHE_TTL_SECONDS: "3600", // no entry expires during the run: the same cache state for all
      SERVER_TIMING: "on", // the split of each operation's time
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined, // tracing only where --otel asks for it
    };
    const onStatus = (status: TargetStatus) => {
      guard.takeOver();
      progress(
        status.available
          ? `${status.target}: started in ${status.startMs} ms`
          : `${status.target}: UNAVAILABLE — ${status.reason}`,
      );
    };
    const launched = await launchRuntimes(opts.runtimes, env, running, onStatus);
    if (opts.otel) {
      collector = await startCollector();
      progress(`OpenTelemetry Collector: ${collector.endpoint}`);
      const traced = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_SERVICE_NAME: "bench" };
      const twins = await launchRuntimes(opts.runtimes, traced, running, onStatus, tracedTarget);
      launched.statuses.push(...twins.statuses);
    }
    const baselines = opts.operations.includes("kv-baseline")
      ? await launchKvBaselines([...new Set(running.map((runtime) => runtime.runtime))], baselineServers)
      : new Map<RuntimeName, string | Error>();
    guard.takeOver();
    for (const [runtime, url] of baselines)
      if (url instanceof Error) progress(`${runtime}: bare KV get UNAVAILABLE — ${url.message.split("\n")[0]}`);
    load = startLoadGenerator();
    if (opts.pin) {
      pinBenchAndServers(opts.pin);
      progress(`Pinned: the bench on CPU ${opts.pin.bench}, every server on CPU ${opts.pin.servers}`);
    }
    const targets = running.map((runtime) => ({ name: runtime.target, url: runtime.url }));
    const twins = new Map(
      targets.flatMap((twin) => {
        const plain = targets.find((target) => `${target.name}${TRACED_SUFFIX}` === twin.name);
        return plain ? [[plain.name, twin] as const] : [];
      }),
    );
    const session = {
      opts,
      tenant: "bench",
      tokens: secretTokens(secret),
      db,
      load,
      budget,
      state: new Map(),
      // A traced twin's bare KV get is its runtime's: tracing is the app's, not the platform's.
      baselines: new Map(
        [...baselines].flatMap(([runtime, url]) => [
          [localTarget(runtime).target, url],
          [tracedTarget(runtime).target, url],
        ]),
      ),
      twins,
    };
    // Every pair at once: on one machine the pairs' few requests do not crowd each other.
    const measured = await measureRun(session, targets, {
      stalenessLanes: targets.length ** 2,
      pollMs: 100,
      timeoutMs: 120_000,
    });
    const naive = db.postgresUrl ? await measureNaiveWrite(db.postgresUrl, opts) : undefined;
    const overhead = db.postgresUrl
      ? await measureEndpointOverhead(db.postgresUrl).catch((error: Error) => error)
      : undefined;
    await cleanup();
    return {
      ...measured,
      statuses: launched.statuses,
      database: db.description,
      usageProbe,
      notes: [naiveWriteNote(naive, opts.dbRttMs), endpointOverheadNote(overhead), pinNote(opts.pin)],
      extra: {
        naiveWrite: naive ?? null,
        endpointOverhead: overhead instanceof Error ? overhead.message : (overhead ?? null),
        ...(opts.otel ? { otel: { collector: "otelcol-edge", serverSpans: serverSpans ?? 0 } } : {}),
        pinned: opts.pin ?? null,
      },
      title: `${db.description.split(",")[0]}, ${describeLoad(opts)}, database round trip ${opts.dbRttMs} ms`,
      header: `database: ${db.description}, each round trip held ${opts.dbRttMs} ms`,
    };
  } finally {
    await cleanup().catch(() => {});
    guard.release();
  }
}
