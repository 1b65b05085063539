// The open model (`--rate`): request i is due at start + i / rate, sent then however many are in
// flight, and timed from when it was due, not from when it went out: a stall of the server counts
// in every request that should have been sent meanwhile (no coordinated omission, as in wrk2).
// A PATCH chain's request waits for the one before it on its path (If-Match must name the current
// version); that wait is part of its latency, and the request counts as late.
import { setTimeout as sleep } from "node:timers/promises";
import type { Phase, PhaseRecorder, PhaseResult } from "./phase-recorder.ts";

/** Sent later than this after it was due: late (timer granularity is about a millisecond). */
const LATE_MS = 1;

export async function runOpenPhase(phase: Phase, recorder: PhaseRecorder): Promise<PhaseResult> {
  const intervalMs = 1000 / phase.ratePerSecond!;
  const started = performance.now();
  const deadline = started + phase.timeLimitMs;
  const chainTails = new Map<string, Promise<unknown>>();
  const inFlight: Promise<unknown>[] = [];
  let late = 0;
  for (let i = 0; i < phase.requests.length; i++) {
    const due = started + i * intervalMs;
    if (due >= deadline) break;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const planned = phase.requests[i]!;
    const before = planned.chain ? chainTails.get(planned.path) : undefined;
    const request = (async () => {
      if (before) await before;
      if (performance.now() - due > LATE_MS) late++;
      await recorder.send(i, due);
    })();
    if (planned.chain) chainTails.set(planned.path, request);
    inFlight.push(request);
  }
  await Promise.all(inFlight);
  return { ...recorder.result(performance.now() - started), late };
}
