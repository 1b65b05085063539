// Stopping a server while keyed creates stream in on keep-alive connections: every request must be
// answered, or fail in a way that says it was never sent (the connection refused). A reset, or a
// connection closed under a request, leaves the client unable to tell whether it was made.
import { Agent, request } from "node:http";
import { expect } from "vitest";
import { signToken } from "../../dev/support/tokens.ts";

const CONNECTIONS = 6;

export interface StoppedServer {
  url: string;
  /** Sends the stop signal; resolves with the exit code. */
  stop(): Promise<unknown>;
}

interface Tally {
  answered: number;
  /** Refused at connect: the request never left the client. */
  neverSent: number;
  /** Anything else: the request may or may not have reached the server. */
  unknown: string[];
}

/** One POST /v1/documents with an Idempotency-Key; what became of it. */
function create(url: string, agent: Agent, authorization: string, key: string): Promise<string> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ contractId: key });
    const req = request(
      `${url}/v1/documents`,
      {
        method: "POST",
        agent,
        headers: { authorization, "content-type": "application/json", "idempotency-key": key },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve("answered")); // whatever the status: the client knows what became of it
        res.on("error", (error) => resolve(`answer cut: ${error.message}`));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      const reused = req.reusedSocket ? " on a reused connection" : "";
      resolve(error.code === "ECONNREFUSED" ? "refused" : `${error.code ?? error.message}${reused}`);
    });
    req.end(body);
  });
}

/** CONNECTIONS writers on kept-alive connections, each until its connection is refused. */
async function streamUntilRefused(url: string, label: string, started: () => void): Promise<Tally> {
  const authorization = `Bearer ${await signToken({ sub: "writer", tid: "stop" })}`;
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const tally: Tally = { answered: 0, neverSent: 0, unknown: [] };
  let next = 0;
  // Every connection has been accepted once each writer has had an answer: the stop then tests
  // kept-alive connections, not connections still waiting in the kernel's accept queue.
  let connected = 0;
  const writer = async () => {
    let first = true;
    for (;;) {
      const outcome = await create(url, agent, authorization, `${label}-${next++}`);
      if (outcome === "answered") {
        tally.answered++;
        if (first && ++connected === CONNECTIONS) started();
        first = false;
      } else if (outcome === "refused") {
        tally.neverSent++;
        return;
      } else {
        tally.unknown.push(outcome);
        if (tally.unknown.length > 20) return;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, writer));
  } finally {
    agent.destroy();
  }
  return tally;
}

/**
 * `rounds` times: start a server, stream keyed creates on kept-alive connections, stop it mid-stream
 * (after a random pause), then check that no request met a reset and that it exited 0.
 */
export async function expectNoResetOnStop(
  start: (round: number) => Promise<StoppedServer>,
  rounds = 10,
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const server = await start(round);
    let flowing = () => {};
    const started = new Promise<void>((resolve) => (flowing = resolve));
    const tally = streamUntilRefused(server.url, `stop${round}-${Date.now()}`, flowing);
    await started;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 300));
    const exitCode = await server.stop();
    const { answered, neverSent, unknown } = await tally;
    expect(unknown, `round ${round}: requests whose fate the client cannot know`).toEqual([]);
    expect(answered, `round ${round}`).toBeGreaterThan(0);
    expect(neverSent, `round ${round}: every writer ends refused at connect`).toBe(CONNECTIONS);
    expect(exitCode, `round ${round}: exit code`).toBe(0);
  }
}
