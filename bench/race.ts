// `npm run race`: on a real PostgreSQL, the naive and the safe version of each problem under the
// same concurrent load, with the violations counted; then numbering throughput per strategy,
// as a ratio to a bare single-row UPDATE. PGlite cannot take part: it is one session, so
// nothing in it ever runs concurrently and a naive version would look correct.
import { LOCAL_POSTGRES_URL } from "../dev/support/scratch-schema.ts";
import {
  benchOptions,
  commandLine,
  machineInfo,
  positiveInt,
  progress,
  runBenchCommand,
  selection,
  UsageError,
  writeResults,
} from "./lib/cli.ts";
import { PhaseClock } from "./lib/eta.ts";
import { createApi } from "./race/api.ts";
import { numberingChart } from "./race/chart.ts";
import { openRaceDatabase, type RaceDatabase } from "./race/database.ts";
import {
  interleavedRound,
  type NumberingLoad,
  type NumberingRun,
  numberingViolations,
  prepareScenarios,
  runStrategy,
  type ScenarioName,
  strategyNames,
} from "./race/numbering.ts";
import { RACE_PHASES, racePlan } from "./race/plan.ts";
import { MAX_CONTENDERS, type ProblemLoad, type ProblemResult, problemNames, problems } from "./race/problems.ts";
import { raceMarkdown, raceText, summarizeNumbering } from "./race/report.ts";

const USAGE = `npm run race -- [options]
  --problems links,numbering,assets   which problems to race (default: all)
  --targets N        accounts / tenants / assets raced on (default 20)
  --contenders N     concurrent requests per target (default 8, at most ${MAX_CONTENDERS})
  --workers N        connections allocating numbers concurrently (default 8)
  --duration MS      per strategy, scenario and round, all slices together (default 2000)
  --tenants N        tenants of the "many tenants" scenario (default 64)
  --rounds N         rounds of the throughput comparison (default 5; a ratio is taken in each)
  --slices N         each strategy's time in a round, cut into N slices that take turns (default 4)
  --pool N           PostgreSQL connections behind the Neon endpoint (default 16)
  --skip-numbering   only the races
  --out DIR          where race.json, race.md and race.svg go (default bench/results)
Database: DATABASE_URL (postgres://…), else ${LOCAL_POSTGRES_URL}; the run uses a scratch schema it drops.`;

function options() {
  const values = benchOptions(USAGE, {
    problems: { type: "string" },
    targets: { type: "string" },
    contenders: { type: "string" },
    workers: { type: "string" },
    duration: { type: "string" },
    tenants: { type: "string" },
    rounds: { type: "string" },
    slices: { type: "string" },
    pool: { type: "string" },
    "skip-numbering": { type: "boolean", default: false },
  });
  const workers = positiveInt("workers", values.workers, 8);
  const contenders = positiveInt("contenders", values.contenders, 8, 2);
  if (contenders > MAX_CONTENDERS) throw new UsageError(`--contenders must be at most ${MAX_CONTENDERS}`);
  return {
    problems: selection("problems", values.problems, problemNames),
    load: { targets: positiveInt("targets", values.targets, 20), contenders },
    numbering: {
      workers,
      durationMs: positiveInt("duration", values.duration, 2000, 50),
      tenants: positiveInt("tenants", values.tenants, 64),
    } satisfies NumberingLoad,
    rounds: positiveInt("rounds", values.rounds, 5),
    slices: positiveInt("slices", values.slices, 4),
    pool: positiveInt("pool", values.pool, 16),
    skipNumbering: values["skip-numbering"],
    out: values.out,
  };
}

async function raceProblems(
  db: RaceDatabase,
  names: readonly string[],
  load: ProblemLoad,
  clock: PhaseClock,
): Promise<ProblemResult[]> {
  const context = { sql: db.sql, pool: db.pool, api: createApi(db.sql) };
  const results: ProblemResult[] = [];
  for (const name of problemNames.filter((n) => names.includes(n))) {
    for (const variant of ["naive", "safe"] as const) {
      const result = await problems[name][variant](context, load);
      progress(
        `race ${name} ${variant}: ${result.violations} ${result.violation} in ${result.attempts} requests${clock.step()}`,
      );
      results.push(result);
    }
  }
  return results;
}

async function compareNumbering(
  db: RaceDatabase,
  load: NumberingLoad,
  rounds: number,
  slices: number,
  clock: PhaseClock,
): Promise<NumberingRun[]> {
  const scenarios = await prepareScenarios(db.pool, load);
  const warmUp = { ...load, durationMs: Math.min(300, load.durationMs) };
  for (const strategy of strategyNames)
    await runStrategy(db.pool, strategy, "many tenants", scenarios["many tenants"], warmUp);
  const runs: NumberingRun[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const scenario of Object.keys(scenarios) as ScenarioName[]) {
      const measured = await interleavedRound(db.pool, scenario, scenarios[scenario], load, { round, slices });
      for (const run of measured)
        progress(`round ${round}/${rounds} ${scenario} ${run.strategy}: ${run.perSecond.toFixed(0)}/s`);
      progress(`round ${round}/${rounds} ${scenario} done${clock.step()}`);
      runs.push(...measured);
    }
  }
  return runs;
}

async function main(): Promise<number> {
  const opts = options();
  const opened = await openRaceDatabase(process.env.DATABASE_URL || undefined, {
    endpointPool: opts.pool,
    directPool: opts.numbering.workers,
  });
  if ("unavailable" in opened) {
    console.log(
      `npm run race needs a real PostgreSQL, and ${opened.unavailable}.\n` +
        "Set DATABASE_URL=postgres://… or start PostgreSQL on 127.0.0.1:5432. (Embedded PGlite is a single " +
        "session: nothing in it runs concurrently, so it can never show a race.) Nothing was run.",
    );
    return 0;
  }
  const db = opened.database;
  const stop = () => void db.close().finally(() => process.exit(130));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    progress(`PostgreSQL ${db.serverVersion}, ${db.description}`);
    const clock = new PhaseClock(racePlan(opts));
    clock.announce();
    clock.begin(RACE_PHASES.races);
    const problemResults = await raceProblems(db, opts.problems, opts.load, clock);
    if (!opts.skipNumbering) clock.begin(RACE_PHASES.numbering);
    const runs = opts.skipNumbering ? [] : await compareNumbering(db, opts.numbering, opts.rounds, opts.slices, clock);
    const numbering = summarizeNumbering(runs, runs.length ? await numberingViolations(db.pool) : {});
    console.log(raceText(problemResults, numbering));
    const command = commandLine("race");
    const result = {
      command,
      finishedAt: new Date().toISOString(),
      machine: await machineInfo(),
      postgres: db.serverVersion,
      settings: {
        load: opts.load,
        numbering: opts.numbering,
        rounds: opts.rounds,
        slices: opts.slices,
        pool: opts.pool,
      },
      problems: problemResults,
      numbering,
    };
    const files = await writeResults(opts.out, {
      "race.json": `${JSON.stringify(result, null, 2)}\n`,
      "race.md": `Command: \`${command}\` (PostgreSQL ${db.serverVersion})\n\n${raceMarkdown(problemResults, numbering)}`,
      ...(numbering.length
        ? {
            "race.svg": numberingChart(
              numbering,
              `Gapless numbering vs the single-row ceiling (${opts.rounds} rounds)`,
            ),
          }
        : {}),
    });
    progress(`Results: ${files.join(", ")}`);
    return 0;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await db.close();
  }
}

await runBenchCommand(USAGE, main);
