// `npm run race`: on a real PostgreSQL, the naive and the safe version of each problem under the
// same concurrent load, with the violations counted; then numbering throughput per strategy,
// as a ratio to a bare single-row UPDATE. PGlite cannot take part: it is one session, so
// nothing in it ever runs concurrently and a naive version would look correct.
import { LOCAL_POSTGRES_URL } from "../dev/support/scratch-schema.ts";
import {
  benchOptions,
  bounds,
  commandLine,
  machineInfo,
  OUT_HELP,
  progress,
  runBenchCommand,
  selection,
  type WholeNumber,
  wholeNumber,
  writeResults,
} from "./lib/cli.ts";
import { PhaseClock } from "./lib/eta.ts";
import { aboveCeilingWarnings, raceWarnings, warningLine } from "./lib/small-run.ts";
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

/** The whole-number options: their bounds and defaults. */
const NUMBERS = {
  targets: { min: 1, default: 20 },
  contenders: { min: 2, max: MAX_CONTENDERS, default: 8 },
  workers: { min: 1, default: 8 },
  duration: { min: 50, default: 2_000 },
  tenants: { min: 1, default: 64 },
  rounds: { min: 1, default: 5 },
  slices: { min: 1, default: 4 },
  pool: { min: 1, default: 16 },
} satisfies Record<string, WholeNumber>;

const USAGE = `npm run race -- [options]
  --problems links,numbering,assets   which problems to race (default: all)
  --targets N        accounts / tenants / assets raced on ${bounds(NUMBERS.targets)}
  --contenders N     concurrent requests per target ${bounds(NUMBERS.contenders)}
  --workers N        connections allocating numbers concurrently ${bounds(NUMBERS.workers)}
  --duration MS      per strategy, scenario and round, all slices together ${bounds(NUMBERS.duration)}
  --tenants N        tenants of the "many tenants" scenario ${bounds(NUMBERS.tenants)}
  --rounds N         rounds of the throughput comparison; a ratio is taken in each ${bounds(NUMBERS.rounds)}
  --slices N         each strategy's time in a round, cut into N slices that take turns ${bounds(NUMBERS.slices)}
  --pool N           PostgreSQL connections behind the Neon endpoint ${bounds(NUMBERS.pool)}
  --skip-numbering   only the races
  --out DIR          where race.json, race.md and race.svg go (${OUT_HELP})
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
  const number = (name: keyof typeof NUMBERS) => wholeNumber(name, values[name], NUMBERS[name]);
  return {
    problems: selection("problems", values.problems, problemNames),
    load: { targets: number("targets"), contenders: number("contenders") },
    numbering: {
      workers: number("workers"),
      durationMs: number("duration"),
      tenants: number("tenants"),
    } satisfies NumberingLoad,
    rounds: number("rounds"),
    slices: number("slices"),
    pool: number("pool"),
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
  const tooSmall = raceWarnings(opts);
  for (const warning of tooSmall) progress(warningLine(warning));
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
    const warnings = [...tooSmall, ...aboveCeilingWarnings(numbering)].map(warningLine);
    console.log(raceText(problemResults, numbering));
    for (const warning of warnings) console.log(warning);
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
      warnings,
    };
    const files = await writeResults(opts.out, {
      "race.json": `${JSON.stringify(result, null, 2)}\n`,
      "race.md": [
        `Command: \`${command}\` (PostgreSQL ${db.serverVersion})`,
        ...warnings.map((warning) => `\n**${warning}**`),
        `\n${raceMarkdown(problemResults, numbering)}`,
      ].join("\n"),
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
    for (const warning of warnings) progress(warning);
    return 0;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await db.close();
  }
}

await runBenchCommand(USAGE, main);
