// `npm run bench` with tiny settings on the node runtime and embedded PGlite: the outputs have
// their shape, and the design's promises are measured: every write is exactly one database round
// trip, a KV hit none.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScript, type ScriptRun } from "./run-script.ts";

interface BenchJson {
  command: string;
  runtimes: { runtime: string; available: boolean; reason?: string }[];
  kvProbe: Record<string, { get: number; put: number; delete: number; list: number } | string>;
  results: {
    runtime: string;
    operation: string;
    requests: number;
    rounds: { perSecond: number }[];
    perSecond: { median: number; min: number; max: number };
    latencyMs: { p50: number; p95: number; p99: number };
    errors: number;
    roundTripsPerRequest: number;
    designRoundTrips: number;
  }[];
  kvHitOverBaseline: { runtime: string; p50: number; overP50: number; ratio: number }[];
}

const OPERATIONS = ["kv-baseline", "link-hit", "link-miss", "link", "asset-patch", "document-create"];

describe("npm run bench (tiny settings, node runtime)", () => {
  let out: string;
  let run: ScriptRun;
  let result: BenchJson;

  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), "bench-"));
    const args = [
      "--requests",
      "20",
      "--rounds",
      "1",
      "--warmup",
      "2",
      "--concurrency",
      "2",
      "--runtimes",
      "node",
      "--out",
      out,
    ];
    run = await runScript("bench/bench.ts", args, { DATABASE_URL: undefined });
    if (run.code !== 0) throw new Error(`bench exited ${run.code}:\n${run.stderr}`);
    result = JSON.parse(await readFile(join(out, "bench.json"), "utf8")) as BenchJson;
  }, 240_000);

  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it("measures every operation on the selected runtime, without errors", () => {
    expect(result.runtimes).toEqual([expect.objectContaining({ runtime: "node", available: true })]);
    expect(result.results.map((r) => r.operation)).toEqual(OPERATIONS);
    for (const summary of result.results) {
      expect(summary.runtime).toBe("node");
      expect(summary.requests).toBe(20);
      expect(summary.errors).toBe(0);
      expect(summary.rounds).toHaveLength(1);
      expect(summary.perSecond.median).toBeGreaterThan(0);
      expect(summary.latencyMs.p50).toBeLessThanOrEqual(summary.latencyMs.p95);
      expect(summary.latencyMs.p95).toBeLessThanOrEqual(summary.latencyMs.p99);
    }
  });

  it("counts one database round trip per write and per KV miss, none per KV hit", () => {
    const roundTrips = Object.fromEntries(result.results.map((r) => [r.operation, r.roundTripsPerRequest]));
    expect(roundTrips).toEqual({
      "kv-baseline": 0,
      "link-hit": 0,
      "link-miss": 1,
      link: 1,
      "asset-patch": 1,
      "document-create": 1,
    });
    for (const summary of result.results) expect(summary.roundTripsPerRequest).toBe(summary.designRoundTrips);
  });

  it("measures the runtime's bare KV get as a baseline and the app's KV hit over it", () => {
    const p50 = (operation: string) => result.results.find((r) => r.operation === operation)!.latencyMs.p50;
    expect(p50("kv-baseline")).toBeGreaterThan(0);
    const [ratio] = result.kvHitOverBaseline;
    expect(result.kvHitOverBaseline).toHaveLength(1);
    expect(ratio).toMatchObject({ runtime: "node", p50: p50("link-hit"), overP50: p50("kv-baseline") });
    expect(ratio!.ratio).toBeCloseTo(p50("link-hit") / p50("kv-baseline"), 6);
    expect(run.stdout).toMatch(/node: KV-hit p50 [\d.]+ ms over its bare KV get [\d.]+ ms = [\d.]+× \(goal ≤ 1\.5×\)/);
  });

  it("counts the KV calls each operation makes", () => {
    expect(result.kvProbe["link-hit"]).toEqual({ get: 1, put: 0, delete: 0, list: 0 });
    expect(result.kvProbe["link-miss"]).toEqual({ get: 1, put: 1, delete: 0, list: 0 });
    expect(result.kvProbe["document-create"]).toEqual({ get: 0, put: 0, delete: 0, list: 0 });
  });

  it("writes the Markdown table and the SVG chart", async () => {
    const markdown = await readFile(join(out, "bench.md"), "utf8");
    expect(markdown).toContain("npm run bench -- --requests 20");
    expect(markdown).toMatch(/\| node \| link lookup \(KV hit\) \|/);
    expect(markdown).toMatch(/\| node \| bare KV get \(baseline\) \|/);
    const svg = await readFile(join(out, "bench.svg"), "utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg.match(/<rect [^>]*><title>node · /g)).toHaveLength(OPERATIONS.length);
    expect(run.stdout).toMatch(/document create/);
  });
});
