// The interactive API reference (Scalar) at /docs, over the app's own /openapi.json. Only the Node
// server mounts it, and only when asked (API_DOCS=on; `npm start` asks): it is kept out of core, so
// no deployed bundle carries it. The page's script is Scalar's browser bundle as installed
// (@scalar/api-reference), served from here: nothing the page loads comes from another host, so it
// works offline and under a CSP that allows only this origin (no inline script: the page's own
// start-up is served as a script too). The page is Scalar's documented HTML embedding, written here
// rather than through @scalar/hono-api-reference, whose dependencies require Node 22.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Hono } from "hono";

export const API_REFERENCE_PATH = "/docs";
export const API_REFERENCE_SCRIPT_PATH = `${API_REFERENCE_PATH}/scalar.js`;
const START_SCRIPT_PATH = `${API_REFERENCE_PATH}/start.js`;

// Scalar's fonts come from its own host; the page uses the system's instead.
const CONFIGURATION = { url: "/openapi.json", withDefaultFonts: false };
const START_SCRIPT = `Scalar.createApiReference("#app", ${JSON.stringify(CONFIGURATION, null, 1)});\n`;
const PAGE = `<!doctype html>
<html>
  <head>
    <title>API reference</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <div id="app"></div>
    <script src="${API_REFERENCE_SCRIPT_PATH}"></script>
    <script src="${START_SCRIPT_PATH}"></script>
  </body>
</html>
`;
const JAVASCRIPT = { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" };

const SCRIPT_FILE = createRequire(import.meta.url).resolve("@scalar/api-reference/browser/standalone.js");

type Handler = (request: Request) => Response | Promise<Response>;

/** `fetch` with /docs in front of it; every other request goes to `fetch` unchanged. */
export function withApiReference(fetch: Handler): Handler {
  // Read on first use (3.5 MB), then kept: the installed file does not change under a running server.
  let script: Promise<Buffer> | undefined;
  const docs = new Hono()
    .get(API_REFERENCE_PATH, (c) => c.html(PAGE))
    .get(START_SCRIPT_PATH, (c) => c.body(START_SCRIPT, 200, JAVASCRIPT))
    .get(API_REFERENCE_SCRIPT_PATH, async (c) => {
      script ??= readFile(SCRIPT_FILE);
      return c.body(new Uint8Array(await script), 200, JAVASCRIPT);
    })
    .all("*", (c) => fetch(c.req.raw));
  return (request) => docs.fetch(request);
}
