// `npm run bench -- --otel`: each runtime started twice, tracing off and on (exporting to the real
// OpenTelemetry Collector the bench starts), their KV hits measured in turns within each round,
// and the cost of tracing printed as a goal. Tiny settings: the figures' shape, not their size.
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { COLLECTOR_MISSING, collectorInstalled } from "../dev/support/collector.ts";
import { describeNeeding } from "../dev/support/required-tool.ts";
import { runBenchScript, runScript, type ScriptRun } from "./lib/run-script.ts";

interface OtelBenchJson {
  targets: { target: string; available: boolean; platform: string }[];
  results: {
    target: string;
    operation: string;
    requests: number;
    errors: number;
    errorKinds: Record<string, number>;
    rounds: { round: number }[];
  }[];
  goals: { target: string; goal: string; figure: string; met: boolean | null }[];
  otel: { collector: string; serverSpans: number };
}

const missing = collectorInstalled() ? undefined : COLLECTOR_MISSING;

describeNeeding("the OpenTelemetry Collector", missing, "npm run bench -- --otel (tiny settings, node)", () => {
  const REQUESTS = 20;
  const ROUNDS = 2;
  let out: string;
  let run: ScriptRun;
  let result: OtelBenchJson;

  beforeAll(async () => {
    const args = ["--otel", "--runtimes", "node", "--operations", "link-hit", "--requests", String(REQUESTS)];
    const tiny = ["--rounds", String(ROUNDS), "--warmup", "2", "--concurrency", "2", "--staleness", "0"];
    ({ out, result, ...run } = await runBenchScript<OtelBenchJson>("bench", [...args, ...tiny], {
      DATABASE_URL: undefined,
    }));
  }, 240_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it("measures the runtime untraced and traced, both without errors, in every round", () => {
    expect(result.targets.map((t) => [t.target, t.available])).toEqual([
      ["node", true],
      ["node+otel", true],
    ]);
    expect(result.targets[1]!.platform).toMatch(/tracing on/);
    const rows = result.results.map((r) => [r.target, r.operation, r.requests, r.errors, r.rounds.length]);
    expect(rows, JSON.stringify(result.results.map((r) => r.errorKinds))).toEqual([
      ["node", "link-hit", ROUNDS * REQUESTS, 0, ROUNDS],
      ["node+otel", "link-hit", ROUNDS * REQUESTS, 0, ROUNDS],
    ]);
  });

  it("exports the traced runtime's requests to the collector", () => {
    // Each measured request of node+otel is a server span (its warm-up and priming ones too).
    expect(result.otel.collector).toBe("otelcol-edge");
    expect(result.otel.serverSpans).toBeGreaterThanOrEqual(ROUNDS * REQUESTS);
  });

  it("prints the two p50s side by side, their ratio and whether tracing stays within 10 %", () => {
    const goal = result.goals.find((g) => g.goal.startsWith("tracing on"));
    expect(goal).toMatchObject({ target: "node", met: expect.any(Boolean) });
    expect(run.stdout).toMatch(
      /Goal node: tracing on adds ≤ 10 % to the KV-hit p50: off [\d.]+ ms, on [\d.]+ ms: [\d.]+× \[95 % interval [\d.]+–[\d.]+×\] \(Server-Timing edge p50 [\d.]+ → [\d.]+ ms\) — (met|NOT MET)/,
    );
  });

  it("is refused for deployments given by URL, before anything is sent", async () => {
    const refused = await runScript("bench/bench.ts", ["--otel", "--target", "a=http://127.0.0.1:9", "--token", "t"], {
      DATABASE_URL: undefined,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^--runtimes, --db-rtt, --otel and --pin are for the runtimes the bench starts/);
  }, 60_000);
});
