// The harness for bursts of a thousand requests: the same production path as
// `startHarness({ backend: "postgres" })` (app → Neon client → local endpoint → PostgreSQL),
// with the test process' own limits fitted to one process playing a thousand clients.
//
// Here one process is the clients, the edge app, the Neon endpoint and its pool, on two cores
// shared with other suites. Left as they are, three of its limits answer 503 for the load
// generator's own backlog, never for PostgreSQL: a thousand sockets opened at once outlast
// fetch's 10 s connect timeout; the last requests of a burst outlast the SQL port's 10 s round trip
// and the endpoint's 10 s wait for a pooled connection. So the client's requests share at most
// MAX_OPEN_REQUESTS connections, as behind an HTTP agent (PostgreSQL still sees the pool's 10
// statements at once, every tenant's creators queueing on its counter), and those waits are raised.
import { type Harness, startHarness } from "../support/harness.ts";

const MAX_OPEN_REQUESTS = 100;
const LOAD_WAIT_MS = 120_000;

export function startLoadHarness(): Promise<Harness> {
  return startHarness({
    backend: "postgres",
    connectionTimeoutMillis: LOAD_WAIT_MS,
    queryTimeoutMs: LOAD_WAIT_MS,
    fetchFunction: cappedFetch(MAX_OPEN_REQUESTS),
  });
}

/** `fetch` with at most `limit` requests open at once; the others wait their turn, in order. */
function cappedFetch(limit: number): typeof fetch {
  let open = 0;
  const waiting: (() => void)[] = [];
  return async (input, init) => {
    if (open < limit) open++;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over
    try {
      return await fetch(input, init);
    } finally {
      const next = waiting.shift();
      if (next) next();
      else open--;
    }
  };
}
