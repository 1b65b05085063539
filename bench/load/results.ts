// A run's results, wherever its targets were: the tables on stdout, and bench.json (versioned:
// docs/benchmarks.md describes it), bench.md, bench.html, bench.svg and bench-split.svg in the
// output folder.
import { machineInfo, progress, writeResults } from "../lib/cli.ts";
import { latencyChart } from "./chart.ts";
import type { Cleanup } from "./cleanup.ts";
import { coldMarkdown, coldText } from "./cold.ts";
import { costMarkdown, costReport, costText } from "./cost.ts";
import { goalNotes, kvHitGoals, tracingGoals } from "./goals.ts";
import { benchHtml, RESULTS_FORMAT } from "./html-report.ts";
import type { OperationName } from "./operations.ts";
import { platformsNote } from "./platform.ts";
import { benchMarkdown, benchText, latencyRatios, notes as reportNotes, summarize } from "./report.ts";
import type { RoundSettings } from "./rounds.ts";
import type { Measurements } from "./run.ts";
import type { RunSettings } from "./run-settings.ts";
import { splitMarkdown, splitText } from "./split.ts";
import { splitChart } from "./split-chart.ts";
import { stalenessMarkdown, stalenessText } from "./staleness.ts";
import type { TargetStatus } from "./summary.ts";
import type { Usage } from "./usage-probe.ts";

/** What bench.json holds, and how: a reader checks `format` and `version` before anything else. */
export const RESULTS_VERSION = 4;

export interface RunOutcome extends Measurements {
  statuses: TargetStatus[];
  database: string;
  usageProbe: Partial<Record<OperationName, Usage | string>>;
  notes: string[];
  /** Fields of bench.json only this kind of run has. */
  extra: Record<string, unknown>;
  /** The chart's title after "Latency per target and operation". */
  title: string;
  /** What bench.md says after the command. */
  header: string;
  cleanup?: Cleanup;
}

/** How the load was offered: a fixed number in flight, or a constant arrival rate. */
export const loadModel = (opts: RoundSettings) =>
  opts.ratePerSecond === undefined
    ? { model: "closed" as const, concurrency: opts.concurrency }
    : { model: "open" as const, ratePerSecond: opts.ratePerSecond };

/** The load model as a chart title says it. */
export const describeLoad = (opts: RoundSettings) =>
  opts.ratePerSecond === undefined ? `concurrency ${opts.concurrency}` : `open model at ${opts.ratePerSecond} req/s`;

/** The run's settings as bench.json records them: an absent rate is written as null. */
export const settingsOf = (opts: RunSettings) => ({
  requests: opts.requests,
  concurrency: opts.concurrency,
  ratePerSecond: opts.ratePerSecond ?? null,
  rounds: opts.rounds,
  warmup: opts.warmup,
  timeLimitMs: opts.timeLimitMs,
  staleness: opts.staleness,
  cold: opts.cold,
  idleSeconds: opts.idleSeconds,
  maxRequests: opts.maxRequests,
});

export async function writeRun(outcome: RunOutcome, opts: RunSettings, command: string, sent: number): Promise<void> {
  const summaries = summarize(outcome.measured, outcome.usageProbe);
  const ratios = latencyRatios(summaries);
  const cost = costReport(summaries, outcome.statuses, opts.prices.table, opts.prices.file);
  const goals = [...kvHitGoals(summaries), ...tracingGoals(summaries)];
  const notes = [
    platformsNote(outcome.statuses),
    ...reportNotes(summaries, outcome.statuses),
    ...ratios.notes,
    ...goalNotes(goals),
    ...outcome.notes,
  ];
  console.log(
    benchText(summaries, outcome.statuses) +
      splitText(summaries) +
      stalenessText(outcome.staleness) +
      coldText(outcome.cold) +
      costText(cost),
  );
  for (const note of notes) console.log(note);
  const machine = await machineInfo();
  const markdown = [
    `Command: \`${command}\` — ${outcome.header}; ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}.`,
    "",
    benchMarkdown(summaries, outcome.statuses),
    "",
    splitMarkdown(summaries),
    stalenessMarkdown(outcome.staleness),
    coldMarkdown(outcome.cold),
    costMarkdown(cost),
    ...notes.map((note) => `- ${note}`),
    "",
  ].join("\n");
  const json = {
    format: RESULTS_FORMAT,
    version: RESULTS_VERSION,
    command,
    finishedAt: new Date().toISOString(),
    machine,
    database: outcome.database,
    settings: settingsOf(opts),
    requestsSent: sent,
    targets: outcome.statuses,
    usageProbe: outcome.usageProbe,
    results: summaries.map((summary) => ({ ...summary, load: loadModel(opts) })),
    ratios: ratios.ratios,
    kvHitOverBaseline: ratios.kvHitOverBaseline,
    kvHitOverDeno: ratios.kvHitOverDeno,
    goals,
    staleness: outcome.staleness,
    coldStarts: outcome.cold,
    cleanup: outcome.cleanup ?? null,
    cost,
    ...outcome.extra,
  };
  const files = await writeResults(opts.out, {
    "bench.json": `${JSON.stringify(json, null, 2)}\n`,
    "bench.md": markdown,
    "bench.html": benchHtml(json),
    "bench.svg": latencyChart(summaries, `Latency per target and operation (${outcome.title})`, outcome.statuses),
    "bench-split.svg": splitChart(summaries, `Where the time went (${outcome.title})`),
  });
  progress(`Results: ${files.join(", ")}`);
}
