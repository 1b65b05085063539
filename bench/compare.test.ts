// `npm run bench` for real on the node runtime, compared with `--compare`: two whole runs of the
// same code show no significant difference, a run whose every database round trip is held 150 ms
// instead of 50 shows one; and `--rate` runs, its report naming the open model.
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
  let same: [string, string];
  let slowed: string;

  beforeAll(async () => {
    // Both sides pay a database round trip as an edge far from Neon does (--db-rtt): on loopback
    // alone a write is a few milliseconds of CPU, and whole runs made one after the other on a busy
    // machine (CI runs other suites beside it) differ by its other work (docs/benchmarks.md).
    const documents = ["--operations", "document-create"];
    const first = await bench(...documents, "--db-rtt", "50");
    const second = await bench(...documents, "--db-rtt", "50");
    same = [first.out, second.out];
    slowed = (await bench(...documents, "--db-rtt", "150")).out;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(outs.map((out) => rm(out, { recursive: true, force: true })));
  });

  it("finds no difference beyond the noise between two runs of the same code", async () => {
    // "~ no significant difference" or "~ within noise", for p50 and for req/s alike.
    expect(await compareLine(...same, "document-create")).toMatch(/document-create\s+~ .*\]\s+~ /);
  });

  it("reports a slower p50 and a lower throughput for the slowed database", async () => {
    const line = await compareLine(same[0], slowed, "document-create");
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
