// A stand-in for the Neon endpoint that misbehaves on demand: a tiny HTTP server between the
// app's Neon client and the real local endpoint, switchable at runtime. Point a second SQL port at it
// (`createNeonSql({ databaseUrl: faulty.databaseUrl(...), fetchEndpoint: faulty.url })`) and
// watch what the app answers while the database is down, slow, failing or talking nonsense.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** How a request is answered instead of the real endpoint's answer. */
type FaultyAnswer =
  /** Accepts the request, then drops the connection without a word. */
  | "reset"
  /** Accepts the request and never answers. */
  | "hang"
  /** 200 with headers and the first half of a body, then nothing. */
  | "slow-body"
  /** 200 with a body that is not JSON. */
  | "not-json"
  /** 400 (which the client reads as a Postgres error) with a body that is not JSON. */
  | "not-json-400"
  | { status: number; text: string };

export type Fault =
  /** Every request goes through to the real endpoint. */
  | "none"
  /** Nothing listens on the port: connection refused. */
  | "down"
  /** `forward`: the request reaches the database first (a write commits), and only its answer is lost. */
  | { answer: FaultyAnswer; forward?: boolean };

export interface FaultyEndpoint {
  /** What the client posts to: http://127.0.0.1:PORT/sql */
  url: string;
  port: number;
  /** A connection string routed here by the SQL port's host:port (the endpoint ignores the rest). */
  databaseUrl(credentials?: string): string;
  setFault(fault: Fault): Promise<void>;
  /** Requests that reached the real endpoint. */
  forwarded(): number;
  close(): Promise<void>;
}

const NOT_JSON = "<html><body>502 Bad Gateway: upstream went away</body></html>";

/**
 * Starts on a free loopback port, forwarding to `target` (the real endpoint's URL). The real
 * endpoint checks its password: requests are forwarded with `upstreamDatabaseUrl` (the stack's
 * own connection string) in place of whatever the client sent.
 */
export async function startFaultyEndpoint(target: string, upstreamDatabaseUrl: string): Promise<FaultyEndpoint> {
  let fault: Fault = "none";
  let forwarded = 0;
  const sockets = new Set<Socket>();

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const current = fault;
    const body = await readAll(req);
    if (current === "none" || current === "down") {
      forwarded++;
      return relay(res, await forward(target, upstreamDatabaseUrl, req, body));
    }
    let upstream: Upstream | undefined;
    if (current.forward) {
      forwarded++;
      upstream = await forward(target, upstreamDatabaseUrl, req, body);
    }
    answerWith(current.answer, req, res, upstream);
  }

  const server = createServer((req, res) => {
    serve(req, res).catch(() => res.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await listen(server, 0);
  const { port } = server.address() as AddressInfo;

  const dropConnections = () => {
    for (const socket of sockets) socket.destroy();
  };

  return {
    url: `http://127.0.0.1:${port}/sql`,
    port,
    databaseUrl: (credentials = "faulty:faulty") => `postgres://${credentials}@127.0.0.1:${port}/faulty`,
    async setFault(next) {
      const wasDown = fault === "down";
      fault = next;
      if (next === "down" && !wasDown) await stop(server, dropConnections);
      if (next !== "down" && wasDown) await listen(server, port);
    },
    forwarded: () => forwarded,
    async close() {
      if (fault !== "down") await stop(server, dropConnections);
      fault = "down";
    },
  };
}

interface Upstream {
  status: number;
  contentType: string;
  text: string;
}

async function forward(target: string, databaseUrl: string, req: IncomingMessage, body: Buffer): Promise<Upstream> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) headers.set(name, value);
  }
  headers.set("neon-connection-string", databaseUrl);
  const response = await fetch(target, { method: req.method, headers, body: new Uint8Array(body) });
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "application/json",
    text: await response.text(),
  };
}

function relay(res: ServerResponse, upstream: Upstream): void {
  res.writeHead(upstream.status, { "content-type": upstream.contentType });
  res.end(upstream.text);
}

function answerWith(answer: FaultyAnswer, req: IncomingMessage, res: ServerResponse, upstream?: Upstream): void {
  if (answer === "reset") return void req.socket.destroy();
  if (answer === "hang") return; // the connection stays open until the client gives up
  if (answer === "slow-body") {
    const text = upstream?.text ?? '{"fields":[{"name":"x","dataTypeID":25}],"rows":[["1"]],"command":"SELECT"}';
    res.writeHead(200, { "content-type": "application/json" });
    return void res.write(text.slice(0, Math.ceil(text.length / 2)));
  }
  if (answer === "not-json" || answer === "not-json-400") {
    res.writeHead(answer === "not-json" ? 200 : 400, { "content-type": "text/html" });
    return void res.end(NOT_JSON);
  }
  res.writeHead(answer.status, { "content-type": "text/plain" });
  res.end(answer.text);
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function stop(server: Server, dropConnections: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    dropConnections(); // keep-alive and hanging connections would hold close() open
  });
}
