// autocannon on a thread of its own, as the bench's load generator is: neither client shares an
// event loop with a server started in the main thread. Every answer's time is kept (autocannon's
// own histogram counts whole milliseconds, too coarse for a 1 ms KV hit).
import { parentPort } from "node:worker_threads";
import autocannon from "autocannon";
import { serve } from "../lib/ts-worker.ts";
import type { PlannedRequest } from "./request.ts";

export interface CannonRun {
  baseUrl: string;
  requests: PlannedRequest[];
  connections: number;
}

export interface CannonResult {
  latencies: number[];
  wallMs: number;
  /** Answers that were not 2xx, network errors and timeouts. */
  failures: number;
}

serve<CannonRun>(parentPort!, async ({ baseUrl, requests, connections }) => {
  const latencies: number[] = [];
  const started = performance.now();
  let lastAnswer = started;
  const instance = autocannon({
    url: baseUrl,
    connections,
    amount: requests.length,
    requests: requests.map(({ method, path, headers, body }) => ({ method, path, headers, body })),
  });
  instance.on("response", (_client, _status, _bytes, ms) => {
    latencies.push(ms);
    lastAnswer = performance.now();
  });
  const result = await instance;
  // Up to the last answer, as the bench's phase times it: autocannon ends a run only at its next
  // one-second sample, and that wait would count as time the target was slow.
  const wallMs = lastAnswer - started;
  const failures = result.errors + result.non2xx + result.timeouts;
  return { latencies, wallMs, failures } satisfies CannonResult;
});
