// Stopping a deployed server while a request waits on the database: a stand-in for Neon's HTTP
// endpoint keeps that request in flight for as long as the test needs.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { NEWEST_MIGRATION } from "../../core/health/newest-migration.ts";
import { READINESS_STATEMENT } from "../../core/health/readiness.ts";
import type { ServerProcess } from "./processes.ts";

/**
 * A Neon endpoint that holds every readiness query (/readyz) until released, then answers it;
 * any other statement (the link sync's) fails at once, so only the request under test waits.
 */
export async function heldEndpoint() {
  const held: ServerResponse[] = [];
  let waiting: (() => void)[] = [];
  const arrived = () => {
    for (const resolve of waiting) resolve();
    waiting = [];
  };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (!body.includes(JSON.stringify(READINESS_STATEMENT))) {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(NOT_HERE));
        return;
      }
      held.push(res);
      arrived();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  // The database holds the schema the code needs: a bool and a text column, as Neon answers them.
  const column = { tableID: 0, columnID: 0, dataTypeModifier: -1, format: "text" };
  const answer = JSON.stringify({
    fields: [
      { ...column, name: "migrated", dataTypeID: 16, dataTypeSize: 1 },
      { ...column, name: "newest", dataTypeID: 25, dataTypeSize: -1 },
    ],
    rows: [["t", NEWEST_MIGRATION]],
    command: "SELECT",
    rowCount: 1,
    rowAsArray: true,
  });
  return {
    env: {
      DATABASE_URL: `postgres://app:pw@127.0.0.1:${port}/app`,
      NEON_FETCH_ENDPOINT: `http://127.0.0.1:${port}/sql`,
    },
    /** Resolves when the next readiness query arrives (and is held). */
    nextArrival: () => new Promise<void>((resolve) => waiting.push(resolve)),
    release: () => {
      for (const res of held.splice(0)) res.writeHead(200, { "content-type": "application/json" }).end(answer);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const NOT_HERE = { message: "only the readiness query is answered here", code: "XX000" };

type HeldEndpoint = Awaited<ReturnType<typeof heldEndpoint>>;

/**
 * Sends `signal` to `server` (`to`: the process it goes to, the server's own unless a task runner
 * relays it) while /readyz waits on `endpoint`, then checks: the listening socket closes at once,
 * the request in flight is answered, the process exits 0.
 */
export async function expectGracefulStop(
  server: ServerProcess,
  endpoint: HeldEndpoint,
  signal: NodeJS.Signals,
  runtime: string,
): Promise<void> {
  const arrival = endpoint.nextArrival();
  const inFlight = fetch(`${server.localUrl}/readyz`);
  await arrival;
  server.child.kill(signal);
  // (`connection: close`: a kept-alive socket from an earlier poll is not a new connection.)
  const probe = () => fetch(`${server.localUrl}/healthz`, { headers: { connection: "close" } });
  await expect
    .poll(() =>
      probe().then(
        () => "accepted",
        () => "refused",
      ),
    )
    .toBe("refused");
  endpoint.release();
  const response = await inFlight;
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ status: "ready", runtime });
  expect(await server.exited).toBe(0);
}
