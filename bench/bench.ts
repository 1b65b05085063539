// `npm run bench`: the same workload on every runtime, against the same database and from the
// same cache state, measured side by side in one run: throughput, latency percentiles, errors,
// database round trips and KV operations per request. Writes bench.json, bench.md, bench.svg.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import type { RuntimeName } from "../dev/launchers/index.ts";
import { type RunningRuntime, runtimeNames } from "../dev/launchers/index.ts";
import { endpointOverheadNote, measureEndpointOverhead } from "../dev/measure/endpoint-overhead.ts";
import { createNeonSql } from "../edge/neon/neon-sql.ts";
import {
  DEFAULT_RESULTS_DIR,
  machineInfo,
  muteStdout,
  positiveInt,
  progress,
  selection,
  UsageError,
  writeResults,
} from "./lib/cli.ts";
import { latencyChart } from "./load/chart.ts";
import {
  closeRuntimes,
  guardProcess,
  launchKvBaselines,
  launchRuntimes,
  openBenchDatabase,
} from "./load/environment.ts";
import { probeKvOperations } from "./load/kv-probe.ts";
import { type LoadGenerator, startLoadGenerator } from "./load/load-generator.ts";
import { measureNaiveWrite, naiveWriteNote } from "./load/naive-write.ts";
import { type OperationName, operationNames } from "./load/operations.ts";
import { benchMarkdown, benchText, latencyRatios, notes as reportNotes, summarize } from "./load/report.ts";
import { runRounds } from "./load/rounds.ts";
import { measureStaleness, stalenessMarkdown, stalenessText } from "./load/staleness.ts";

const USAGE = `npm run bench -- [options]
  --requests N      requests per runtime, operation and round (default 200)
  --concurrency N   requests in flight at once (default 4: two cores serve client and servers)
  --rounds N        measured rounds; the spread between them is reported (default 3)
  --warmup N        unmeasured requests per runtime and operation first (default 20)
  --runtimes LIST   ${runtimeNames.join(",")} (default: all)
  --operations LIST ${operationNames.join(",")} (default: all)
  --time-limit MS   no new request in a phase after this long (default 6000)
  --db-rtt MS       the Neon endpoint holds each round trip this long, as the edge-to-database
                    distance would (default 0: same machine; at the edge 5–40)
  --staleness N     unlinks per runtime pair timed for cross-edge staleness (default 3, 0: none)
  --out DIR         where bench.json, bench.md and bench.svg go (default docs/results)
Database: DATABASE_URL (postgres://…, a scratch schema is used and dropped), else embedded PGlite.
With PostgreSQL the bench also times the naive write and the local endpoint's overhead over pg.`;

function options() {
  const { values } = parseArgs({
    options: {
      requests: { type: "string" },
      concurrency: { type: "string" },
      rounds: { type: "string" },
      warmup: { type: "string" },
      runtimes: { type: "string" },
      operations: { type: "string" },
      "time-limit": { type: "string" },
      "db-rtt": { type: "string" },
      staleness: { type: "string" },
      out: { type: "string", default: DEFAULT_RESULTS_DIR },
      help: { type: "boolean", default: false },
    },
  });
  return {
    help: values.help,
    requests: positiveInt("requests", values.requests, 200),
    concurrency: positiveInt("concurrency", values.concurrency, 4),
    rounds: positiveInt("rounds", values.rounds, 3),
    warmup: positiveInt("warmup", values.warmup, 20, 0),
    runtimes: selection<RuntimeName>("runtimes", values.runtimes, runtimeNames),
    operations: selection<OperationName>("operations", values.operations, operationNames),
    timeLimitMs: positiveInt("time-limit", values["time-limit"], 6_000),
    dbRttMs: positiveInt("db-rtt", values["db-rtt"], 0, 0),
    staleness: positiveInt("staleness", values.staleness, 3, 0),
    out: values.out,
  };
}

async function main(): Promise<number> {
  const opts = options();
  if (opts.help) {
    console.log(USAGE);
    return 0;
  }
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
  const db = await openBenchDatabase(process.env.DATABASE_URL || undefined, opts.dbRttMs);
  progress(`Database: ${db.description}`);
  const secret = randomBytes(32).toString("base64url");
  // The runtimes log one line per request, as in production; printed, 10 000 lines would bury
  // the progress and time the terminal. They are produced, and dropped here.
  const unmute = muteStdout();
  const running: RunningRuntime[] = [];
  const baselineServers: RunningRuntime[] = [];
  let load: LoadGenerator | undefined;
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      try {
        await load?.close();
        await closeRuntimes([...running, ...baselineServers]);
        await db.close();
      } finally {
        unmute();
      }
    })());
  const guard = guardProcess(cleanup, running, baselineServers);
  try {
    const sql = createNeonSql({ databaseUrl: db.databaseUrl, fetchEndpoint: db.neonFetchEndpoint });
    const kv = await probeKvOperations(sql, opts.operations, db.seed, secret);
    const env = {
      ...process.env,
      AUTH_SECRET: secret,
      DATABASE_URL: db.databaseUrl,
      NEON_FETCH_ENDPOINT: db.neonFetchEndpoint,
      LINK_CACHE_TTL_SECONDS: "3600", // no entry expires during the run: the same cache state for all
    };
    const launched = await launchRuntimes(opts.runtimes, env, running, (status) => {
      guard.takeOver();
      progress(
        status.available
          ? `${status.runtime}: started in ${status.startMs} ms`
          : `${status.runtime}: UNAVAILABLE — ${status.reason}`,
      );
    });
    const baselines = opts.operations.includes("kv-baseline")
      ? await launchKvBaselines(
          running.map((runtime) => runtime.runtime),
          baselineServers,
        )
      : new Map<RuntimeName, string | Error>();
    guard.takeOver();
    for (const [runtime, url] of baselines)
      if (url instanceof Error) progress(`${runtime}: bare KV get UNAVAILABLE — ${url.message.split("\n")[0]}`);
    load = startLoadGenerator();
    const measured = await runRounds({ opts, db, secret, load, etags: new Map(), baselines }, running);
    const naive = db.postgresUrl ? await measureNaiveWrite(db.postgresUrl, opts) : undefined;
    const overhead = db.postgresUrl
      ? await measureEndpointOverhead(db.postgresUrl).catch((error: Error) => error)
      : undefined;
    const staleness = await measureStaleness(running, secret, opts.staleness);
    await cleanup();

    const summaries = summarize(measured, kv);
    const ratios = latencyRatios(summaries);
    const notes = [
      ...reportNotes(summaries, launched.statuses),
      ...ratios.notes,
      naiveWriteNote(naive, opts.dbRttMs),
      endpointOverheadNote(overhead),
    ];
    console.log(benchText(summaries, launched.statuses) + stalenessText(staleness));
    for (const note of notes) console.log(note);
    const machine = await machineInfo();
    const { requests, concurrency, rounds, warmup, timeLimitMs, dbRttMs } = opts;
    const settings = { requests, concurrency, rounds, warmup, timeLimitMs, dbRttMs };
    const title = `Latency per runtime and operation (${db.description.split(",")[0]}, concurrency ${concurrency}, database round trip ${dbRttMs} ms)`;
    const markdown = [
      `Command: \`${command}\` — database: ${db.description}, each round trip held ${dbRttMs} ms; ` +
        `${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}.`,
      "",
      benchMarkdown(summaries, launched.statuses),
      "",
      stalenessMarkdown(staleness),
      ...notes.map((note) => `- ${note}`),
      "",
    ].join("\n");
    const files = await writeResults(opts.out, {
      "bench.json": `${JSON.stringify({ command, finishedAt: new Date().toISOString(), machine, database: db.description, settings, runtimes: launched.statuses, kvProbe: kv, results: summaries, kvHitOverBaseline: ratios.kvHitOverBaseline, kvHitOverDeno: ratios.kvHitOverDeno, naiveWrite: naive ?? null, endpointOverhead: overhead instanceof Error ? overhead.message : (overhead ?? null), staleness }, null, 2)}\n`,
      "bench.md": markdown,
      "bench.svg": latencyChart(summaries, title, launched.statuses),
    });
    progress(`Results: ${files.join(", ")}`);
    return 0;
  } finally {
    await cleanup().catch(() => {});
    guard.release();
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(error instanceof UsageError ? `${error.message}\n\n${USAGE}` : error);
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
