// `npm run bench` with tiny settings on the node runtime and embedded PGlite: the outputs have
// their shape, and the design's promises are measured: every write is exactly one database round
// trip, a KV miss two (the link's read and the one confirming its copy), a KV hit none.
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBenchScript, type ScriptRun } from "./lib/run-script.ts";

interface BenchJson {
  command: string;
  format: string;
  version: number;
  targets: { target: string; available: boolean; reason?: string }[];
  usageProbe: Record<
    string,
    { kv: { get: number; put: number; delete: number; list: number }; bytesOut: number } | string
  >;
  results: {
    target: string;
    operation: string;
    requests: number;
    rounds: { perSecond: number; p50: number }[];
    perSecond: { median: number; min: number; max: number };
    latencyMs: { p50: number; p95: number; p99: number };
    errors: number;
    roundTripsPerRequest: number;
    designRoundTrips: number;
    split: { timed: number; meanMs: Record<string, number> } | null;
  }[];
  kvHitOverBaseline: {
    target: string;
    p50: number;
    overP50: number;
    ratio: number;
    min: number;
    max: number;
    rounds: { round: number; p50: number; overP50: number; ratio: number }[];
  }[];
  ratios: {
    label: string;
    numerator: { target: string; operation: string };
    denominator: { target: string; operation: string };
    median: number;
    low: number;
    high: number;
  }[];
}

const OPERATIONS = ["kv-baseline", "link-hit", "link-miss", "link", "asset-patch", "document-create"];

describe("npm run bench (tiny settings, node runtime)", () => {
  let out: string;
  let run: ScriptRun;
  let result: BenchJson;

  beforeAll(async () => {
    const args = ["--requests", "20", "--rounds", "1", "--warmup", "2", "--concurrency", "2", "--runtimes", "node"];
    ({ out, result, ...run } = await runBenchScript<BenchJson>("bench", args, { DATABASE_URL: undefined }));
  }, 240_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it("measures every operation on the selected runtime, without errors", () => {
    expect(result).toMatchObject({ format: "edge-race-free-bench", version: 4 });
    expect(result.targets).toEqual([expect.objectContaining({ target: "node", available: true })]);
    expect(result.results.map((r) => r.operation)).toEqual(OPERATIONS);
    for (const summary of result.results) {
      expect(summary.target).toBe("node");
      expect(summary.requests).toBe(20);
      expect(summary.errors).toBe(0);
      expect(summary.rounds).toHaveLength(1);
      expect(summary.perSecond.median).toBeGreaterThan(0);
      expect(summary.latencyMs.p50).toBeLessThanOrEqual(summary.latencyMs.p95);
      expect(summary.latencyMs.p95).toBeLessThanOrEqual(summary.latencyMs.p99);
    }
  });

  it("counts one database round trip per write, two per KV miss (its copy confirmed), none per KV hit", () => {
    const roundTrips = Object.fromEntries(result.results.map((r) => [r.operation, r.roundTripsPerRequest]));
    expect(roundTrips).toEqual({
      "kv-baseline": 0,
      "link-hit": 0,
      "link-miss": 2,
      link: 1,
      "asset-patch": 1,
      "document-create": 1,
    });
    for (const summary of result.results) expect(summary.roundTripsPerRequest).toBe(summary.designRoundTrips);
  });

  it("measures the runtime's bare KV get as a baseline and the app's KV hit over it, round by round", () => {
    const summary = (operation: string) => result.results.find((r) => r.operation === operation)!;
    expect(summary("kv-baseline").latencyMs.p50).toBeGreaterThan(0);
    const [ratio] = result.kvHitOverBaseline;
    expect(result.kvHitOverBaseline).toHaveLength(1);
    expect(ratio).toMatchObject({
      target: "node",
      p50: summary("link-hit").latencyMs.p50,
      overP50: summary("kv-baseline").latencyMs.p50,
    });
    const hit = summary("link-hit").rounds[0]!.p50;
    const bare = summary("kv-baseline").rounds[0]!.p50;
    expect(ratio!.rounds).toEqual([{ round: 1, p50: hit, overP50: bare, ratio: expect.closeTo(hit / bare, 9) }]);
    expect(ratio).toMatchObject({
      ratio: ratio!.rounds[0]!.ratio,
      min: ratio!.rounds[0]!.ratio,
      max: ratio!.rounds[0]!.ratio,
    });
    // One round: its interval is that round's ratio alone.
    expect(result.ratios).toEqual([
      {
        label: "node: KV-hit p50 / bare KV get p50",
        numerator: { target: "node", operation: "link-hit" },
        denominator: { target: "node", operation: "kv-baseline" },
        median: ratio!.ratio,
        low: ratio!.ratio,
        high: ratio!.ratio,
      },
    ]);
    expect(run.stdout).toMatch(/node: KV-hit p50 \/ bare KV get p50: [\d.]+× \[95 % interval [\d.]+–[\d.]+×\]/);
    // Each goal with its figure and whether it is met; which, a tiny run on a busy machine cannot promise.
    expect(run.stdout).toMatch(/Goal node: KV-hit p50 ≤ 1\.3× bare KV get p50, .*: [\d.]+× .* — (met|NOT MET)/);
    expect(run.stdout).toMatch(/Goal node: limit ≤ 5 % of the KV-hit p50: [\d.]+ ms of [\d.]+ ms .* — (met|NOT MET)/);
  });

  it("splits each app operation's time by its Server-Timing, the parts adding up", () => {
    for (const summary of result.results.filter((r) => r.operation !== "kv-baseline")) {
      const m = summary.split!.meanMs;
      expect(summary.split!.timed).toBe(20);
      expect(m.network! + m.edge!).toBeCloseTo(m.client!, 6);
      expect(m.auth! + m.db! + m.kv! + m.limit! + m.app!).toBeCloseTo(m.edge!, 6);
      if (summary.designRoundTrips > 0) expect(m.db).toBeGreaterThan(0);
    }
    // The bare KV get is not the app: it sends no Server-Timing.
    expect(result.results.find((r) => r.operation === "kv-baseline")!.split).toBeNull();
  });

  it("counts the KV calls each operation makes, and its answer's bytes", () => {
    const usage = (operation: string) =>
      result.usageProbe[operation] as Exclude<BenchJson["usageProbe"][string], string>;
    expect(usage("link-hit").kv).toEqual({ get: 1, put: 0, delete: 0, list: 0 });
    expect(usage("link-miss").kv).toEqual({ get: 1, put: 1, delete: 0, list: 0 });
    expect(usage("document-create").kv).toEqual({ get: 0, put: 0, delete: 0, list: 0 });
    // A link's JSON and its headers: more than a status line, less than a page.
    for (const operation of ["link-hit", "link-miss", "document-create"])
      expect(usage(operation).bytesOut).toSatisfy((bytes: number) => bytes > 100 && bytes < 4096);
  });

  it("says its single round is too few for an interval, in its report and on stderr", async () => {
    const warning = /WARNING: 1 round\(s\): the 95 % intervals need 3/;
    expect(await readFile(join(out, "bench.md"), "utf8")).toMatch(warning);
    expect(run.stderr).toMatch(warning);
  });

  it("writes the Markdown table, the SVG chart and the HTML page", async () => {
    const markdown = await readFile(join(out, "bench.md"), "utf8");
    expect(markdown).toContain("npm run bench -- --requests 20");
    expect(markdown).toMatch(/\| node \| link lookup \(KV hit\) \|/);
    expect(markdown).toMatch(/\| node \| bare KV get \(baseline\) \|/);
    const svg = await readFile(join(out, "bench.svg"), "utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg.match(/<rect [^>]*><title>node · /g)).toHaveLength(OPERATIONS.length);
    expect(run.stdout).toMatch(/document create/);
    const html = await readFile(join(out, "bench.html"), "utf8");
    expect(html.match(/<title>node · [^<]*: p50 /g)).toHaveLength(OPERATIONS.length);
  });
});
