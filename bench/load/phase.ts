// One measured phase: `concurrency` lanes send their share of the planned requests back to back;
// lane k sends requests k, k + concurrency, … (so a PATCH chain stays on one lane). Latency is
// from just before fetch to the end of the body; nothing new starts after the time limit.
import { type TimedAnswer, timedAnswer } from "../../dev/support/server-timing.ts";
import { type Expectation, type PlannedRequest, send } from "./request.ts";

export interface Phase {
  baseUrl: string;
  requests: PlannedRequest[];
  expect: Expectation;
  concurrency: number;
  timeLimitMs: number;
  /** Current ETags of the chained paths. */
  etags: [string, string][];
}

export interface PhaseResult {
  /** One per completed request, in ms. */
  latencies: number[];
  /** Requests not answered as expected, by reason. */
  errors: Record<string, number>;
  /** The completed requests whose answer carried Server-Timing: client time beside the app's parts. */
  timings: TimedAnswer[];
  wallMs: number;
  etags: [string, string][];
}

export async function runPhase(phase: Phase, fetcher: (request: Request) => Promise<Response>): Promise<PhaseResult> {
  const etags = new Map(phase.etags);
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const timings: TimedAnswer[] = [];
  const started = performance.now();
  const deadline = started + phase.timeLimitMs;
  const lane = async (first: number) => {
    for (let i = first; i < phase.requests.length && performance.now() < deadline; i += phase.concurrency) {
      const sent = performance.now();
      const { failure, serverTiming } = await send(fetcher, phase.baseUrl, phase.requests[i]!, phase.expect, etags);
      const latency = performance.now() - sent;
      latencies.push(latency);
      const timing = timedAnswer(serverTiming, latency);
      if (timing) timings.push(timing);
      if (failure) errors[failure] = (errors[failure] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: phase.concurrency }, (_, k) => lane(k)));
  return { latencies, errors, timings, wallMs: performance.now() - started, etags: [...etags] };
}
