// The load generator's thread: the client's work never shares an event loop with a server.
import { parentPort } from "node:worker_threads";
import { serve } from "../lib/ts-worker.ts";
import { httpTransport } from "./http-client.ts";
import { runPhase } from "./phase.ts";
import type { Phase } from "./phase-recorder.ts";

serve<Phase>(parentPort!, (phase) => runPhase(phase, httpTransport(phase.baseUrl)));
