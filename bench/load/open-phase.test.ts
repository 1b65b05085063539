// The open model against a server that answers one request at a time: a stall is counted in every
// request due meanwhile (latency from when it was due), where the closed loop counts it once.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { runPhase } from "./phase.ts";
import type { Phase } from "./phase-recorder.ts";
import { fetchTransport, type Transport } from "./request.ts";

const SERVICE_MS = 10;

/** One request at a time, each SERVICE_MS; records the order of the paths it served. */
function serialServer(served: string[]): Transport {
  let queue = Promise.resolve();
  return fetchTransport((request) => {
    const answer = queue.then(async () => {
      await sleep(SERVICE_MS);
      served.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get("if-match") ?? ""}`);
      return new Response("ok", { headers: { etag: `"${served.length}"` } });
    });
    queue = answer.then(() => {});
    return answer;
  }, "http://bench.invalid");
}

const phase = (requests: Phase["requests"], ratePerSecond?: number): Phase => ({
  baseUrl: "http://bench.invalid",
  requests,
  expect: { status: 200 },
  concurrency: 1,
  ratePerSecond,
  timeLimitMs: 10_000,
  etags: [],
});

const gets = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ method: "GET", path: `/${i}`, headers: {} }));
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

describe("open model (--rate)", () => {
  it("times each request from when it was due, so a queue shows in the latencies", async () => {
    // 200 per second offered, 100 per second served: request i waits about 5 i ms more than the first.
    const open = await runPhase(phase(gets(20), 200), serialServer([]));
    const closed = await runPhase(phase(gets(20)), serialServer([]));
    expect(open.latencies).toHaveLength(20);
    expect(mean(open.latencies.slice(-5))).toBeGreaterThan(mean(open.latencies.slice(0, 5)) + 50);
    expect(mean(closed.latencies.slice(-5))).toBeLessThan(mean(closed.latencies.slice(0, 5)) + 20);
  });

  it("keeps a PATCH chain in order on its path, and counts the requests that waited as late", async () => {
    const served: string[] = [];
    const patch = { method: "PATCH", path: "/asset", headers: {}, chain: true };
    const result = await runPhase(phase([patch, patch, patch], 1000), serialServer(served));
    expect(served).toEqual(["PATCH /asset *", 'PATCH /asset "1"', 'PATCH /asset "2"']);
    expect(result.late).toBe(2);
    expect(result.errors).toEqual({});
  });
});
