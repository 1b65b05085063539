import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { serve } from "@hono/node-server";
import { PROBLEM_CONTENT_TYPE, ProblemError } from "../../core/problem.ts";

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export interface ListenOptions {
  port?: number;
  hostname?: string;
  /** The largest request header section Node's parser accepts; beyond it: 431. */
  maxHeaderBytes?: number;
}

export const DEFAULT_MAX_HEADER_BYTES = 16 * 1024;

/** Serves a Web-standard handler on Node's HTTP server. */
export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  { port = 8787, hostname = "127.0.0.1", maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES }: ListenOptions = {},
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let closing = false;
    const server = serve(
      { fetch, port, hostname, serverOptions: { maxHeaderSize: maxHeaderBytes } },
      (info: AddressInfo) => {
        resolve({
          url: `http://${hostname}:${info.port}`,
          // Stops accepting; in-flight requests are answered, each then closing its connection.
          // Keep-alive connections would otherwise hold close() open, or keep bringing requests.
          close: () =>
            new Promise<void>((done) => {
              closing = true;
              const closeIdle = () => ("closeIdleConnections" in server ? server.closeIdleConnections() : undefined);
              const sweeper = setInterval(closeIdle, 100);
              server.close(() => {
                clearInterval(sweeper);
                done();
              });
              closeIdle();
            }),
        });
      },
    );
    server.on("clientError", answerUnparsableRequest);
    server.on("request", (_request: unknown, response: { shouldKeepAlive: boolean }) => {
      if (closing) response.shouldKeepAlive = false;
    });
    server.once("error", reject);
  });
}

/**
 * A request Node's parser refuses never reaches the app; it is answered here, as problem+json like
 * every other error, instead of Node's bare status line.
 */
function answerUnparsableRequest(error: Error & { code?: string }, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const problem = parserProblem(error.code);
  const body = problem.toProblem();
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${body.status} ${body.title}\r\n` +
      `content-type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\n` +
      "connection: close\r\n\r\n" +
      text,
  );
}

function parserProblem(code: string | undefined): ProblemError {
  switch (code) {
    case "HPE_INVALID_METHOD":
      return new ProblemError(501, "not_implemented", "The request method is not recognized.");
    case "HPE_HEADER_OVERFLOW":
      return new ProblemError(431, "headers_too_large", "The request's header fields are too large.");
    default:
      return new ProblemError(400, "malformed_request", "The request is not valid HTTP/1.1.");
  }
}
