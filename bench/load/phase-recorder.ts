// What a measured phase is, what it yields, and what it collects while it runs, whichever load
// model sends its requests (phase.ts closed, open-phase.ts open).
import { type TimedAnswer, timedAnswer } from "../../dev/support/server-timing.ts";
import { type Expectation, type PlannedRequest, type Sent, send, type Transport } from "./request.ts";

export interface Phase {
  baseUrl: string;
  requests: PlannedRequest[];
  expect: Expectation;
  concurrency: number;
  /** Set: the open model, requests due at this constant rate whatever the answers' pace. */
  ratePerSecond?: number;
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
  /** Open model: requests sent more than a millisecond after they were due (a chain or the client behind). */
  late?: number;
}

/** What a phase collects, whichever model sends its requests. */
export function phaseRecorder(phase: Phase, transport: Transport) {
  const etags = new Map(phase.etags);
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const timings: TimedAnswer[] = [];
  return {
    etags,
    /** Sends request i; its latency counts from `from` (when it was sent, or when it was due). */
    async send(i: number, from: number): Promise<Sent> {
      const sent = await send(transport, phase.requests[i]!, phase.expect, etags);
      const latency = sent.answeredAt - from;
      latencies.push(latency);
      const timing = timedAnswer(sent.serverTiming, latency);
      if (timing) timings.push(timing);
      if (sent.failure) errors[sent.failure] = (errors[sent.failure] ?? 0) + 1;
      return sent;
    },
    result: (wallMs: number) => ({ latencies, errors, timings, wallMs, etags: [...etags] }),
  };
}

export type PhaseRecorder = ReturnType<typeof phaseRecorder>;
