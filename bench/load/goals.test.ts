import { describe, expect, it } from "vitest";
import { goalNotes, kvHitGoals, tracingGoals } from "./goals.ts";
import type { OperationName } from "./operations.ts";
import type { Summary } from "./summary.ts";

/** A summary with what the goals read: rounds' p50s, the pooled p50 and the split's limit. */
function summary(target: string, operation: OperationName, p50s: number[], limitMs?: number): Summary {
  return {
    target,
    operation,
    requests: 100 * p50s.length,
    rounds: p50s.map((p50, i) => ({ round: i + 1, p50 })),
    latencyMs: { p50: p50s[0]!, p95: 0, p99: 0 },
    split: limitMs === undefined ? null : { meanMs: { limit: limitMs } },
  } as unknown as Summary;
}

describe("the KV hit's goals", () => {
  it("judges node, cloudflare and deno by the ratio, its interval and the limit's share; fastly only reported", () => {
    const goals = kvHitGoals([
      summary("node", "kv-baseline", [1, 1, 1]),
      summary("node", "link-hit", [1.2, 1.2, 1.2], 0.01),
      summary("deno", "kv-baseline", [1, 1, 1]),
      summary("deno", "link-hit", [1.2, 1.2, 1.2], 0.5),
      summary("cloudflare", "kv-baseline", [1, 1, 1]),
      summary("cloudflare", "link-hit", [1.4, 1.4, 1.4], 0),
      summary("fastly-test-host", "kv-baseline", [1, 1, 1]),
      summary("fastly-test-host", "link-hit", [5, 5, 5], 2),
    ]);
    const met = Object.fromEntries(goals.map((g) => [`${g.target} ${g.goal.split(" ")[0]}`, g.met]));
    expect(met).toEqual({
      "node KV-hit": true,
      "node limit": true,
      "deno KV-hit": true,
      "deno limit": false,
      "cloudflare KV-hit": false,
      "cloudflare limit": true,
      "fastly-test-host KV-hit": null,
      "fastly-test-host limit": null,
    });
    expect(goalNotes(goals)).toContain(
      "Goal deno: limit ≤ 5 % of the KV-hit p50: 0.500 ms of 1.20 ms (41.7 %) — NOT MET",
    );
    expect(goalNotes(goals)[0]).toBe(
      "Goal node: KV-hit p50 ≤ 1.3× bare KV get p50, interval's upper end ≤ 1.5×: 1.20× [95 % interval 1.20–1.20×] — met",
    );
  });
});

describe("the cost of tracing (--otel)", () => {
  it("sets each runtime's traced KV-hit p50 beside its untraced one, round by round, judged within 1.1×", () => {
    const goals = tracingGoals([
      summary("node", "link-hit", [1, 2, 1]),
      summary("node+otel", "link-hit", [1.05, 2.1, 1.1]),
      summary("deno", "link-hit", [1, 1, 1]),
      summary("deno+otel", "link-hit", [1.2, 1.15, 1.3]),
      summary("fastly-viceroy", "link-hit", [4, 4, 4]),
      summary("fastly-viceroy+otel", "link-hit", [5, 5, 5]),
      summary("cloudflare+otel", "link-hit", [1, 1, 1]),
    ]);
    expect(goals.map((g) => [g.target, g.met])).toEqual([
      ["node", true],
      ["deno", false],
      ["fastly-viceroy", null],
    ]);
    expect(goalNotes(goals)[0]).toBe(
      "Goal node: tracing on adds ≤ 10 % to the KV-hit p50: off 1.00 ms, on 1.05 ms: 1.05× [95 % interval 1.05–1.10×] — met",
    );
  });
});
