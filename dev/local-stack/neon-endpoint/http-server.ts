// The local endpoint's HTTP server: node:http, each request handed over with its whole body
// (bodies are small JSON, read whole) and answered with a string.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface EndpointRequest {
  method: string;
  /** The request target as sent ("/sql?x=1"). */
  url: string;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string | undefined>;
  /** The whole body, or undefined when it was longer than `maxBodyBytes` (it was read and dropped). */
  body: Buffer | undefined;
  /** Fires when the client goes away before its answer is sent. */
  signal: AbortSignal;
}

export interface EndpointAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export type EndpointHandler = (request: EndpointRequest) => Promise<EndpointAnswer>;

interface ServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  maxBodyBytes: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveMs: number;
}

export interface EndpointServer {
  port: number;
  /** Stops listening and closes idle connections; resolves once every request in flight is answered. */
  close(): Promise<void>;
}

// What a request's line and headers may take, a large connection string included.
const MAX_HEADER_BYTES = 32 * 1024;

export async function listenHttp(handler: EndpointHandler, options: ServerOptions): Promise<EndpointServer> {
  let closing = false;
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, noDelay: true }, (req, res) => {
    void serve(req, res, handler, options.maxBodyBytes, () => closing);
  });
  server.keepAliveTimeout = options.keepAliveMs;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing = true;
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  handler: EndpointHandler,
  maxBodyBytes: number,
  closing: () => boolean,
): Promise<void> {
  // The client going away before its answer (its connection closed) abandons the request.
  const gone = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) gone.abort();
  });
  let answer: EndpointAnswer;
  try {
    const body = await readBody(req, maxBodyBytes);
    answer = await handler({
      method: req.method ?? "",
      url: req.url ?? "",
      headers: joined(req),
      body,
      signal: gone.signal,
    });
  } catch (error) {
    answer = { status: 500, body: error instanceof Error ? error.message : String(error) };
  }
  if (closing()) res.shouldKeepAlive = false;
  if (!res.destroyed) res.writeHead(answer.status, answer.headers).end(answer.body);
}

/** The body, or undefined once it grew past `limit`: the rest is drained, not kept. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size > limit ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** Node's header object, with the few headers it keeps as lists (set-cookie) joined too. */
function joined(req: IncomingMessage): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : value]),
  );
}
