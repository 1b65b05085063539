import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";

interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Serves a Web-standard handler on Node's HTTP server. */
export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  { port = 8787, hostname = "127.0.0.1" }: { port?: number; hostname?: string } = {},
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname }, (info: AddressInfo) => {
      resolve({
        url: `http://${hostname}:${info.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
    server.once("error", reject);
  });
}
