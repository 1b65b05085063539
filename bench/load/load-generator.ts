// The main thread's handle on the load-generator thread (bench/load/worker.ts).
import { channel, startTsWorker } from "../lib/ts-worker.ts";
import type { Phase, PhaseResult } from "./phase-recorder.ts";

export interface LoadGenerator {
  run(phase: Phase): Promise<PhaseResult>;
  close(): Promise<void>;
}

export function startLoadGenerator(): LoadGenerator {
  const worker = startTsWorker(new URL("./worker.ts", import.meta.url));
  const call = channel<Phase>(worker);
  return {
    run: (phase) => call<PhaseResult>(phase),
    close: async () => void (await worker.terminate()),
  };
}
