// One measured phase, in one of two load models.
// Closed (the default): `concurrency` lanes send their share of the planned requests back to back;
// lane k sends requests k, k + concurrency, … (so a PATCH chain stays on one lane). Latency is
// from just before the request goes out to the end of its answer's body, before it is checked.
// Open (`ratePerSecond`): bench/load/open-phase.ts. Either way nothing new starts after the time limit.
import { runOpenPhase } from "./open-phase.ts";
import { type Phase, type PhaseResult, phaseRecorder } from "./phase-recorder.ts";
import type { Transport } from "./request.ts";

export async function runPhase(phase: Phase, transport: Transport): Promise<PhaseResult> {
  const recorder = phaseRecorder(phase, transport);
  if (phase.ratePerSecond !== undefined) return runOpenPhase(phase, recorder);
  const started = performance.now();
  const deadline = started + phase.timeLimitMs;
  const lane = async (first: number) => {
    for (let i = first; i < phase.requests.length && performance.now() < deadline; i += phase.concurrency) {
      await recorder.send(i, performance.now());
    }
  };
  await Promise.all(Array.from({ length: phase.concurrency }, (_, k) => lane(k)));
  return recorder.result(performance.now() - started);
}
