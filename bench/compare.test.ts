// `npm run bench` for real on the node runtime, compared with `--compare`: a run compared with
// itself shows no change, a run whose every database round trip is held 150 ms instead of 50 shows
// one; and `--rate` runs, its report naming the open model. Whether two runs of one distribution
// count as "no difference" is a question of the statistics, answered with seeded samples in
// stats/stats.test.ts: two real runs would miss the 95 % interval one time in twenty.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBenchScript, runScript } from "./lib/run-script.ts";

interface RunJson {
  results: { operation: string; load: unknown; percentiles: { p: number; samples: number }[] }[];
}

const SMALL = ["--runtimes", "node", "--requests", "20", "--rounds", "5", "--warmup", "20", "--staleness", "0"];
const outs: string[] = [];

async function bench(...args: string[]) {
  const run = await runBenchScript<RunJson>("bench", [...SMALL, ...args], { DATABASE_URL: undefined });
  outs.push(run.out);
  return run;
}

/** The compare table's line for an operation. */
async function compareLine(before: string, after: string, label: string): Promise<string> {
  const run = await runScript("bench/bench.ts", ["--compare", join(before, "bench.json"), join(after, "bench.json")]);
  expect(run.code).toBe(0);
  return run.stdout.split("\n").find((line) => line.includes(label)) ?? "";
}

describe("npm run bench -- --compare, and --rate (node runtime, small)", () => {
  let base: string;
  let slowed: string;

  beforeAll(async () => {
    // Both pay the database's distance (--db-rtt), so the slowed run's change is the distance's alone.
    const documents = ["--operations", "document-create", "--db-rtt"];
    base = (await bench(...documents, "50")).out;
    slowed = (await bench(...documents, "150")).out;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(outs.map((out) => rm(out, { recursive: true, force: true })));
  });

  it("finds no difference between a run and itself, for p50 and for req/s alike", async () => {
    expect(await compareLine(base, base, "document-create")).toMatch(/document-create\s+~ .*\]\s+~ /);
  });

  it("reports a slower p50 and a lower throughput for the slowed database", async () => {
    const line = await compareLine(base, slowed, "document-create");
    expect(line).toMatch(/document-create\s+\+[\d.]+ % \[\+[\d.]+ %, \+[\d.]+ %\]\s+-[\d.]+ % \[-/);
  });

  it("runs the open model at a given rate and says so in bench.json", async () => {
    const run = await bench("--operations", "link-hit", "--rate", "100", "--rounds", "1");
    const [result] = run.result.results;
    expect(result!.load).toEqual({ model: "open", ratePerSecond: 100 });
    expect(result!.percentiles.map((p) => p.p)).toEqual([50, 90, 99, 99.9]);
    expect(result!.percentiles[0]!.samples).toBe(11);
  }, 60_000);
});
