// The database side of the benchmark in a thread of its own: the Neon-compatible endpoint and
// the database behind it (PGlite runs its WebAssembly synchronously). In the main thread it would
// share an event loop with the node runtime where that runs in process (`npm run bench:sync`).
import { parentPort, workerData } from "node:worker_threads";
import { startLocalStack } from "../../dev/local-stack/stack.ts";
import { serve } from "../lib/ts-worker.ts";

export type DatabaseRequest =
  | { op: "statements" }
  | { op: "reset" }
  | { op: "seed"; query: string; params: string[] }
  | { op: "close" };

const { databaseUrl, roundTripDelayMs } = workerData as { databaseUrl?: string; roundTripDelayMs?: number };
const stack = await startLocalStack({ databaseUrl, roundTripDelayMs });

serve<DatabaseRequest>(parentPort!, async (request) => {
  switch (request.op) {
    case "statements":
      return stack.endpoint.statements();
    case "reset":
      return stack.endpoint.resetStatements();
    case "seed":
      // Straight to the database: setup is never counted as the endpoint's round trips.
      return void (await stack.backend.query({ query: request.query, params: request.params }));
    case "close":
      return stack.close();
  }
});
parentPort!.postMessage({ ready: { databaseUrl: stack.databaseUrl, neonFetchEndpoint: stack.neonFetchEndpoint } });
