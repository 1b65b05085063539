// The interactive API reference (Scalar) at /docs, over the app's own /openapi.json. Only the Node
// server mounts it, and only when asked (API_DOCS=on; `npm start` asks): it is kept out of core, so
// no deployed bundle carries it. The page's script is Scalar's one browser bundle, served from
// here: nothing the page loads comes from another host, so it works offline and under a CSP that
// allows only this origin (no inline script: the page's own start-up is served as a script too).
// @scalar/api-reference is a development dependency: the release build copies its bundle beside
// the server (SCALAR_SCRIPT_NAME), so a production install holds none of its build tree. The page
// is Scalar's documented HTML embedding, written here rather than through
// @scalar/hono-api-reference, whose dependencies require Node 22.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import { SettingsError } from "../../core/settings/error.ts";

export const API_REFERENCE_PATH = "/docs";
export const API_REFERENCE_SCRIPT_PATH = `${API_REFERENCE_PATH}/scalar.js`;
const START_SCRIPT_PATH = `${API_REFERENCE_PATH}/start.js`;
/** The bundle's file name beside the release's server (dist/node/), where `npm run build:node` puts it. */
export const SCALAR_SCRIPT_NAME = "scalar-standalone.js";
/** The security scheme of core/openapi/document.ts that a token in the page's URL fills in. */
const SECURITY_SCHEME = "bearer";

/**
 * Only what works from this machine: Scalar's fonts, AI agent, developer toolbar (Share, Deploy,
 * Configure) and telemetry all talk to Scalar's own hosts.
 */
export const SCALAR_CONFIGURATION = {
  url: "/openapi.json",
  withDefaultFonts: false,
  agent: { disabled: true },
  showDeveloperTools: "never",
  telemetry: false,
};
// A token in the URL's fragment (`/docs#token=…`, as `npm start` prints it) fills in the bearer
// scheme; the fragment never reaches a server or a log, and is dropped from the address bar.
const START_SCRIPT = `const configuration = ${JSON.stringify(SCALAR_CONFIGURATION, null, 1)};
const token = new URLSearchParams(location.hash.slice(1)).get("token");
if (token) {
  configuration.authentication = {
    preferredSecurityScheme: "${SECURITY_SCHEME}",
    securitySchemes: { ${SECURITY_SCHEME}: { token } },
  };
  history.replaceState(null, "", location.pathname + location.search);
}
Scalar.createApiReference("#app", configuration);
`;
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

/** The installed package's bundle: where the release build copies it from, and `npm start` serves it. */
export const installedScalarScript = (): string =>
  createRequire(import.meta.url).resolve("@scalar/api-reference/browser/standalone.js");

/**
 * The bundle beside the running server (a release), else the installed package's (development);
 * neither: API_DOCS=on cannot be served, said by name at start.
 */
export function scalarScriptFile(): string {
  const beside = fileURLToPath(new URL(`./${SCALAR_SCRIPT_NAME}`, import.meta.url));
  if (existsSync(beside)) return beside;
  try {
    return installedScalarScript();
  } catch {
    throw new SettingsError(
      "API_DOCS",
      `is on, but Scalar's script is missing: run the release built by npm run build:node (${SCALAR_SCRIPT_NAME} beside the server), or install the dev dependencies`,
    );
  }
}

/** A server's handler: the request, and what the server hands beside it (the socket on Node). */
type Handler = (request: Request, env?: unknown) => Response | Promise<Response>;

/** `fetch` with /docs in front of it; every other request goes to `fetch` unchanged. */
export function withApiReference(fetch: Handler, scriptFile = scalarScriptFile()): Handler {
  // Read on first use (3.5 MB), then kept: the file does not change under a running server.
  let script: Promise<Buffer> | undefined;
  const docs = new Hono()
    .get(API_REFERENCE_PATH, (c) => c.html(PAGE))
    .get(START_SCRIPT_PATH, (c) => c.body(START_SCRIPT, 200, JAVASCRIPT))
    .get(API_REFERENCE_SCRIPT_PATH, async (c) => {
      script ??= readFile(scriptFile);
      return c.body(new Uint8Array(await script), 200, JAVASCRIPT);
    })
    .all("*", (c) => fetch(c.req.raw, c.env));
  return (request, env) => docs.fetch(request, env);
}
