// The summary arithmetic and the reporting of runtimes that could not run.
import { describe, expect, it } from "vitest";
import { median, percentile } from "../../dev/support/stats.ts";
import { latencyChart } from "./chart.ts";
import { runInterleaved, type SliceablePhase } from "./interleave.ts";
import type { OperationName } from "./operations.ts";
import { benchMarkdown, latencyRatios, notes, summarize } from "./report.ts";
import { settingsOf } from "./results.ts";
import type { RunSettings } from "./run-settings.ts";
import type { Measured } from "./summary.ts";

describe("stats", () => {
  it("takes nearest-rank percentiles from the raw samples", () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted
    expect(percentile(samples, 50)).toBe(50);
    expect(percentile(samples, 95)).toBe(95);
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile(samples, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it("takes the median of an even count as the mean of the middle two", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([3, 1, 2])).toBe(2);
  });
});

describe("report", () => {
  const phase = (round: number, latencies: number[], statements: number): Measured => ({
    target: "node",
    operation: "document-create",
    round,
    result: { latencies, errors: round === 2 ? { "HTTP 503": 1 } : {}, timings: [], wallMs: 1000, etags: [] },
    statements,
  });
  const summaries = summarize([phase(1, [1, 2, 3, 4], 4), phase(2, [5, 6, 7, 8], 5)], {
    "document-create": { kv: { get: 0, put: 0, delete: 0, list: 0 }, bytesOut: 420 },
  });
  const statuses = [
    { target: "node", available: true },
    { target: "fastly", available: false, reason: "The fastly runtime has no local launcher yet" },
  ];

  it("pools latencies over rounds and keeps each round's figures for the spread", () => {
    expect(summaries).toHaveLength(1);
    const [summary] = summaries;
    expect(summary!.requests).toBe(8);
    expect(summary!.perSecond).toEqual({ median: 4, min: 4, max: 4 });
    expect(summary!.latencyMs).toEqual({ p50: 4, p95: 8, p99: 8 });
    expect(summary!.p50Range).toEqual({ min: 2, max: 6 });
    expect(summary!.roundTripsPerRequest).toBe(9 / 8);
    expect(summary!.kvPerRequest).toEqual({ get: 0, put: 0, delete: 0, list: 0 });
    expect(summary!.bytesOutPerRequest).toBe(420);
    expect(summary!.errors).toBe(1);
  });

  it("lists an unavailable runtime with its reason instead of dropping it", () => {
    expect(benchMarkdown(summaries, statuses)).toMatch(/\| fastly \| unavailable \(see below\) \|/);
    expect(notes(summaries, statuses)).toEqual([
      "fastly unavailable: The fastly runtime has no local launcher yet",
      "node document create errors: 1× HTTP 503",
    ]);
    expect(latencyChart(summaries, "t", statuses)).toContain("not measured (unavailable): fastly");
  });
});

describe("the KV hit over the bare KV get", () => {
  const phase = (operation: OperationName, round: number, p50: number): Measured => ({
    target: "node",
    operation,
    round,
    result: { latencies: [p50, p50, p50], errors: {}, timings: [], wallMs: 10, etags: [] },
    statements: 0,
  });
  // Round 2 was busy for both alike; pooled, it would make the bare get look as slow as the hit.
  const measured = [
    ...[1, 2, 3].map((round) => phase("kv-baseline", round, [1, 4, 1.2][round - 1]!)),
    ...[1, 2, 3].map((round) => phase("link-hit", round, [1.3, 4.8, 1.8][round - 1]!)),
  ];
  const ratios = latencyRatios(summarize(measured, {}));

  it("takes the ratio within each round and reports its median and spread", () => {
    const [ratio] = ratios.kvHitOverBaseline;
    expect(ratios.kvHitOverBaseline).toHaveLength(1);
    expect(ratio!.rounds.map((r) => r.ratio)).toEqual([1.3, 1.2, 1.5].map((r) => expect.closeTo(r, 9)));
    expect(ratio!.ratio).toBeCloseTo(1.3, 9);
    expect(ratio!.min).toBeCloseTo(1.2, 9);
    expect(ratio!.max).toBeCloseTo(1.5, 9);
    expect(ratio).toMatchObject({ target: "node", p50: 1.8, overP50: 1.2 });
    expect(ratios.notes).toEqual(["node: KV-hit p50 / bare KV get p50: 1.30× [95 % interval 1.20–1.50×]"]);
    expect(ratios.ratios).toEqual([
      {
        label: "node: KV-hit p50 / bare KV get p50",
        numerator: { target: "node", operation: "link-hit" },
        denominator: { target: "node", operation: "kv-baseline" },
        median: expect.closeTo(1.3, 9),
        low: expect.closeTo(1.2, 9),
        high: expect.closeTo(1.5, 9),
      },
    ]);
  });

  it("leaves out a runtime whose bare KV get answered nothing", () => {
    const failed = measured.map((m) =>
      m.operation === "kv-baseline" ? { ...m, result: { ...m.result, latencies: [] } } : m,
    );
    expect(latencyRatios(summarize(failed, {})).kvHitOverBaseline).toEqual([]);
  });
});

describe("interleaved phases", () => {
  const sliced = (name: string, requests: number, log: string[]): SliceablePhase => ({
    requests,
    run: async (from, to, timeLimitMs) => {
      log.push(`${name} ${from}-${to} ${timeLimitMs}`);
      return {
        result: { latencies: [to - from], errors: { late: 1 }, timings: [], wallMs: 5, etags: [[name, String(to)]] },
        statements: to - from,
      };
    },
  });

  it("takes turns slice by slice, the other phase first on even rounds, and pools each phase", async () => {
    const log: string[] = [];
    const [a, b] = await runInterleaved([sliced("a", 10, log), sliced("b", 4, log)], {
      round: 2,
      slices: 3,
      timeLimitMs: 600,
    });
    expect(log).toEqual(["b 0-1 200", "a 0-3 200", "b 1-3 200", "a 3-7 200", "b 3-4 200", "a 7-10 200"]);
    expect(a).toEqual({
      result: { latencies: [3, 4, 3], errors: { late: 3 }, timings: [], wallMs: 15, etags: [["a", "10"]], late: 0 },
      statements: 10,
    });
    expect(b!.result.latencies).toEqual([1, 2, 1]);
  });
});

describe("settingsOf", () => {
  const opts = {
    requests: 200,
    concurrency: 4,
    rounds: 3,
    warmup: 20,
    operations: ["link-hit"],
    timeLimitMs: 6_000,
    staleness: 3,
    cold: 1,
    idleSeconds: 30,
    maxRequests: 1_000,
    out: "/tmp",
    prices: { file: "bench/prices.json", table: [] },
  } satisfies RunSettings;

  it("records the run's settings in bench.json's order, an absent rate as null, and nothing else", () => {
    expect(JSON.stringify(settingsOf(opts))).toBe(
      JSON.stringify({
        requests: 200,
        concurrency: 4,
        ratePerSecond: null,
        rounds: 3,
        warmup: 20,
        timeLimitMs: 6_000,
        staleness: 3,
        cold: 1,
        idleSeconds: 30,
        maxRequests: 1_000,
      }),
    );
    expect(settingsOf({ ...opts, ratePerSecond: 200 }).ratePerSecond).toBe(200);
  });
});
