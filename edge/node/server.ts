import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Serves a Web-standard handler on Node's HTTP server. */
export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  { port = 8787, hostname = "127.0.0.1" }: { port?: number; hostname?: string } = {},
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    let closing = false;
    const server = serve({ fetch, port, hostname }, (info: AddressInfo) => {
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
    });
    server.on("request", (_request: unknown, response: { shouldKeepAlive: boolean }) => {
      if (closing) response.shouldKeepAlive = false;
    });
    server.once("error", reject);
  });
}
