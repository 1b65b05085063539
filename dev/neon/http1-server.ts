// The local endpoint's HTTP/1.1 server: requests framed by http-parser-js straight off the socket,
// answers written as one string. node:http costs ~0.2 ms of CPU per round trip here (request
// and response streams, header objects, the server's bookkeeping) — as much as a one-row INSERT
// on a nearby PostgreSQL — and the endpoint needs none of it: bodies are small JSON read whole,
// answers are strings of known length. docs/local-stack.md#overhead has the figures.
import { createServer, type Socket } from "node:net";
import { HTTPParser } from "http-parser-js";

export interface Http1Request {
  method: string;
  /** The request target as sent ("/sql?x=1"). */
  url: string;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** The whole body, or undefined when it was longer than `maxBodyBytes` (it was read and dropped). */
  body: Buffer | undefined;
  /** Fires when the client goes away before its answer is sent. */
  signal: AbortSignal;
}

export interface Http1Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export type Http1Handler = (request: Http1Request) => Promise<Http1Answer>;

interface Http1Options {
  host: string;
  /** 0 picks a free port. */
  port: number;
  maxBodyBytes: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveMs: number;
}

export interface Http1Server {
  port: number;
  /** Stops listening and closes idle connections; resolves once every request in flight is answered. */
  close(): Promise<void>;
}

const REASONS: Record<number, string> = {
  100: "Continue",
  200: "OK",
  204: "No Content",
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
  507: "Insufficient Storage",
};

// What a request's line and headers may take, a large connection string included.
const MAX_HEADER_BYTES = 32 * 1024;

export async function listenHttp1(handler: Http1Handler, options: Http1Options): Promise<Http1Server> {
  const connections = new Set<Connection>();
  let closing = false;
  const server = createServer((socket) => {
    const connection = serveConnection(socket, handler, options, () => closing);
    connections.add(connection);
    socket.on("close", () => connections.delete(connection));
  });
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
        for (const connection of connections) connection.endIfIdle();
      }),
  };
}

interface Connection {
  endIfIdle(): void;
}

/** One client connection: its requests answered in the order they came, one at a time. */
function serveConnection(
  socket: Socket,
  handler: Http1Handler,
  options: Http1Options,
  closing: () => boolean,
): Connection {
  socket.setNoDelay(true);
  socket.setTimeout(options.keepAliveMs, () => {
    if (pending === 0) socket.destroy();
  });
  // Requests on one connection run one after another, so one signal serves them all.
  const gone = new AbortController();
  socket.on("close", () => gone.abort());
  socket.on("error", () => {}); // a reset by the client ends the connection; "close" follows

  let pending = 0;
  let answered = Promise.resolve();
  let head: { method: string; url: string; headers: Record<string, string>; keepAlive: boolean } | undefined;
  let chunks: Buffer[] = [];
  let size = 0;

  // Bytes of the reads in which the current request's headers did not complete: the parser checks
  // its own limit only within one read, and a header spread over reads would escape it. A read
  // that completed headers is not counted: it held earlier requests (a pipelined burst), not one
  // oversized header.
  let headerBytes = 0;
  let headersCompleted = 0;
  const parser = new HTTPParser(HTTPParser.REQUEST);
  parser.maxHeaderSize = MAX_HEADER_BYTES;
  parser[HTTPParser.kOnHeadersComplete] = (info) => {
    headersCompleted++;
    headerBytes = 0;
    const headers = headerObject(info.headers);
    const method = HTTPParser.methods[info.method as number] ?? "";
    head = { method, url: info.url, headers, keepAlive: info.shouldKeepAlive };
    chunks = [];
    size = 0;
    if (headers.expect?.toLowerCase() === "100-continue") socket.write("HTTP/1.1 100 Continue\r\n\r\n");
  };
  // Views, not copies: each read of a socket gets a buffer of its own.
  parser[HTTPParser.kOnBody] = (chunk, offset, length) => {
    size += length;
    if (size <= options.maxBodyBytes) chunks.push(chunk.subarray(offset, offset + length));
  };
  parser[HTTPParser.kOnMessageComplete] = () => {
    if (!head) return;
    const body = size > options.maxBodyBytes ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const request: Http1Request = {
      method: head.method,
      url: head.url,
      headers: head.headers,
      body,
      signal: gone.signal,
    };
    const keepAlive = head.keepAlive;
    head = undefined;
    const reply = handler(request).catch(
      (error: unknown): Http1Answer => ({ status: 500, body: error instanceof Error ? error.message : String(error) }),
    );
    // Answers go out in the order the requests came; alone on its connection, a request's goes at once.
    const previous = pending++ === 0 ? undefined : answered;
    answered = (previous ? previous.then(() => reply) : reply).then((answer) => send(answer, keepAlive));
  };

  function send(answer: Http1Answer, keepAlive: boolean): void {
    pending--;
    const close = !keepAlive || closing();
    if (socket.writable) socket.write(serialize(answer, close));
    if (close) socket.end();
  }

  socket.on("data", (data: Buffer) => {
    const completedBefore = headersCompleted;
    const result = parser.execute(data);
    if (result instanceof Error) return refuse(result);
    const inHeaders = head === undefined && headersCompleted === completedBefore;
    if (inHeaders && (headerBytes += data.length) > MAX_HEADER_BYTES) refuse(new Error("max header size exceeded"));
  });
  // A client that ends its side has gone away, as node:http sees it: what it asked is abandoned.
  socket.on("end", () => gone.abort());

  /** A request that cannot be framed: answered, then the connection closes (nothing after it can be read). */
  function refuse(error: Error): void {
    socket.removeAllListeners("data");
    const status = /header size/i.test(error.message) ? 431 : 400;
    answered = answered.then(() => {
      if (!socket.writable) return;
      socket.end(
        serialize({ status, body: JSON.stringify({ message: `malformed HTTP request: ${error.message}` }) }, true),
      );
    });
  }

  return {
    endIfIdle: () => {
      if (pending === 0 && !head) socket.end();
    },
  };
}

// Clients send the same few header names with every request: each is lower-cased once.
const lowerCaseNames = new Map<string, string>();

function headerObject(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const sent = raw[i] as string;
    let name = lowerCaseNames.get(sent);
    if (name === undefined) {
      name = sent.toLowerCase();
      if (lowerCaseNames.size < 1000) lowerCaseNames.set(sent, name);
    }
    const value = raw[i + 1] ?? "";
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

/** Status line, headers and body as one string: one write, one packet for a small answer. */
function serialize({ status, headers = {}, body = "" }: Http1Answer, close: boolean): string {
  let text = `HTTP/1.1 ${status} ${REASONS[status] ?? "Unknown"}\r\n`;
  for (const name in headers) text += `${name}: ${headers[name]}\r\n`;
  if (status !== 204) text += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  if (close) text += "Connection: close\r\n";
  return `${text}\r\n${body}`;
}
