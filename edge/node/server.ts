import { createServer, type Server as HttpServer, type IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { getRequestListener, RequestError } from "@hono/node-server";
import { unrecognizedMethod } from "../../core/http/methods.ts";
import { PROBLEM_CONTENT_TYPE, ProblemError, problemResponse } from "../../core/http/problem.ts";

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export interface ListenOptions extends Partial<ServerLimits> {
  port?: number;
  hostname?: string;
}

/** What one client can hold of the server: none of these is unbounded. */
export interface ServerLimits {
  /** The largest request header section Node's parser accepts; beyond it: 431. */
  maxHeaderBytes: number;
  /** The header section must have arrived within this; else 408 and the connection closes. */
  headersTimeoutMs: number;
  /** The whole request, body included (at most 64 KiB), must have arrived within this; else 408. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections beyond this many open at once are closed as they are accepted. */
  maxConnections: number;
  /**
   * A connection on which nothing moves either way for this long (a client that reads none of its
   * answers), or whose refused request still waits this long behind the answers before it, is
   * closed; one stalled on a write after twice this (Node grants a write under way one more period).
   * Longer than the app takes to answer (its database and key-set timeouts).
   */
  idleTimeoutMs: number;
}

// A client that trickles its request in (a byte every few seconds) would otherwise hold its
// connection for Node's defaults: 60 s of headers, 300 s of request.
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // Node's own default, set here so it is stated; a proxy in front must close idle upstream
  // connections sooner, or it may reuse one just as the server closes it.
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
  idleTimeoutMs: 60_000,
};

export const DEFAULT_MAX_HEADER_BYTES = DEFAULT_SERVER_LIMITS.maxHeaderBytes;

/** Serves a Web-standard handler on Node's HTTP server. */
export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  { port = 8787, hostname = "127.0.0.1", ...overrides }: ListenOptions = {},
): Promise<RunningServer> {
  const limits = { ...DEFAULT_SERVER_LIMITS, ...overrides };
  return new Promise((resolve, reject) => {
    let closing = false;
    // The adapter's listener on Node's own server (Hono's `serve`, less its refusals' bare 400).
    const listener = hostRequired(getRequestListener(fetch, { hostname, errorHandler: adapterRefusal }), hostname);
    const server: HttpServer = createServer(
      {
        // Checked by hostRequired instead, which answers as every other refusal does.
        requireHostHeader: false,
        maxHeaderSize: limits.maxHeaderBytes,
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        // How often Node looks for connections past those timeouts (its default: every 30 s).
        connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
      },
      listener,
    );
    server.listen(port, hostname, () => {
      resolve({
        url: `http://${hostname}:${(server.address() as AddressInfo).port}`,
        // Stops accepting; every request that reached the server is answered, the last one on
        // each connection with `Connection: close`, and the connection closed after it.
        close: () =>
          new Promise<void>((done) => {
            closing = true;
            // http.Server#close would also close every idle keep-alive connection at once: a
            // request the client is sending on one then meets a reset, and the client cannot
            // tell it from one never made. They stay open instead: each either brings one more
            // request (answered, then closed) or ends by the keep-alive timeout every answer
            // announced (`Keep-Alive: timeout=5`), which clients stop reusing it before.
            server.closeIdleConnections = () => {};
            server.close(() => done());
          }),
      });
    });
    server.maxConnections = limits.maxConnections;
    // Without a `timeout` listener, Node destroys a socket idle this long (keep-alive ones: their own timeout).
    server.setTimeout(limits.idleTimeoutMs);
    server.on("clientError", unparsableRequestAnswerer(limits.idleTimeoutMs));
    server.on("connect", connectAnswerer(listener));
    // An expectation other than 100-continue is served, as workerd and Deno do (RFC 9110 §10.1.1
    // allows either), rather than Node's bare 417.
    server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
      latestAnswers.set(request.socket, response);
      void listener(request, response);
    });
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      latestAnswers.set(request.socket, response);
      if (closing) response.shouldKeepAlive = false;
    });
    server.once("error", reject);
  });
}

/**
 * Node hands a CONNECT to a `connect` listener, not to the request handler (without one it drops
 * the connection). The API tunnels nothing: a CONNECT naming a path goes to the app like any other
 * method, which answers 405 with that path's `Allow`; one naming an authority (`host:port`) names
 * no resource of this server, and gets 405 with an empty `Allow`.
 */
function connectAnswerer(listener: RequestListener) {
  return (request: IncomingMessage, socket: Duplex) => {
    if (!request.url?.startsWith("/")) {
      writeProblem(
        socket,
        new ProblemError(405, "method_not_allowed", "This server tunnels nothing.", {}, { allow: "" }),
      );
      return;
    }
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.on("finish", () => {
      response.detachSocket(socket as Socket);
      socket.end();
    });
    void listener(request, response);
  };
}

/**
 * A request Node's parser refuses never reaches the app; it is answered here, as problem+json like
 * every other error, instead of Node's bare status line. A connection whose refusal is not written
 * within `waitMs` (the answers before it unread) is closed: Node reads on, and discards, whatever
 * the client sends meanwhile, which would keep the idle timeout from ever ending it.
 */
function unparsableRequestAnswerer(waitMs: number) {
  return (error: Error & { code?: string }, socket: Duplex): void => {
    // One refusal per connection: another error while it waits (a timeout) changes nothing.
    if (refusing.has(socket)) return;
    refusing.add(socket);
    const deadline = setTimeout(() => socket.destroy(), waitMs);
    socket.once("close", () => clearTimeout(deadline));
    refuseInTurn(error, socket);
  };
}

const refusing = new WeakSet<Duplex>();

/**
 * Each connection's answer to its latest request. Answers go out in the order of their requests,
 * so once it is finished every answer before it is too.
 */
const latestAnswers = new WeakMap<Duplex, ServerResponse>();

function refuseInTurn(error: Error & { code?: string }, socket: Duplex): void {
  const latest = latestAnswers.get(socket);
  const unfinished = latest?.writableFinished ? undefined : latest;
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  // The refused request came after one received whole, whose answer is still being written (a
  // body longer than its Content-Length, or pipelining): answers go out in the order of their
  // requests (RFC 9112 §9.3.2), else the refusal would reach the client as that request's answer
  // (a write made, reported refused). Node's parser reads nothing more meanwhile.
  if (unfinished?.req.complete) {
    unfinished.once("finish", () => refuseInTurn(error, socket));
    return;
  }
  // The refusal is the in-flight request's own (its body malformed, or late): answered at once,
  // unless its answer has begun, which cannot be taken back.
  if (unfinished?.headersSent) {
    socket.destroy();
    return;
  }
  writeProblem(socket, parserProblem(error.code));
}

/**
 * The adapter refuses a request whose target and Host make no URL, or a backslash in its path,
 * before the app (its RequestError); answered as problem+json like Node's own refusals, not a
 * bare 400. The app itself never throws: anything else is an internal error.
 */
function adapterRefusal(error: unknown): Response {
  return problemResponse(
    error instanceof RequestError
      ? new ProblemError(400, "malformed_request", "The request's target and Host header make no URL.")
      : new ProblemError(500, "internal_error", "An unexpected error occurred."),
  );
}

type RequestListener = ReturnType<typeof getRequestListener>;

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without Host is 400. Node's own check answers it with a bare
 * status line; this one, through the same adapter, with the problem every other refusal carries.
 */
function hostRequired(listener: RequestListener, hostname: string): RequestListener {
  const problem = new ProblemError(400, "malformed_request", "An HTTP/1.1 request must name its Host.");
  // The adapter builds the refused request's URL from `hostname`, as it would for HTTP/1.0.
  const refuse = getRequestListener(() => problemResponse(problem, { connection: "close" }), { hostname });
  return (request, response) =>
    request.headers.host === undefined && request.httpVersion === "1.1"
      ? refuse(request, response)
      : listener(request, response);
}

/** A problem answer written on the socket itself, for requests the request handler never sees. */
function writeProblem(socket: Duplex, problem: ProblemError): void {
  const body = problem.toProblem();
  const text = JSON.stringify(body);
  const extra = Object.entries(problem.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(
    `HTTP/1.1 ${body.status} ${body.title}\r\n` +
      `content-type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      extra.join("") +
      `content-length: ${Buffer.byteLength(text)}\r\n` +
      "connection: close\r\n\r\n" +
      text,
  );
}

function parserProblem(code: string | undefined): ProblemError {
  switch (code) {
    case "HPE_INVALID_METHOD":
      return unrecognizedMethod();
    case "HPE_HEADER_OVERFLOW":
      return new ProblemError(431, "headers_too_large", "The request's header fields are too large.");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ProblemError(408, "request_timeout", "The request did not arrive in time.");
    default:
      return new ProblemError(400, "malformed_request", "The request is not valid HTTP/1.1.");
  }
}
