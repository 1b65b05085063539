// The web app's own origin: a page and its script, served on 127.0.0.1 at a port of its own, so
// every call it makes to the API is cross-origin. The script is bundled from TypeScript here.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";

const PAGE = `<!doctype html>
<html>
  <head><meta charset="utf-8" /><title>Web app</title></head>
  <body><script type="module" src="/app.js"></script></body>
</html>
`;

export interface PageServer {
  /** The port: http://127.0.0.1:PORT and http://localhost:PORT are two origins of one page. */
  port: number;
  close(): Promise<void>;
}

/** Serves `/` (the page) and `/app.js` (`entry`, bundled for the browser). */
export async function servePage(entry: string): Promise<PageServer> {
  const bundle = await build({ entryPoints: [entry], bundle: true, format: "esm", write: false, target: "es2022" });
  const script = bundle.outputFiles[0]!.contents;
  const server: Server = createServer((request, response) => {
    if (request.url === "/app.js") {
      response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(script);
    } else {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
