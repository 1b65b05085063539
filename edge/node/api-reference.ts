// The interactive API reference (Scalar) at /docs, over the app's own /openapi.json. Only the Node
// server mounts it, and only when asked (API_DOCS=on; `npm start` asks): it is kept out of core, so
// no deployed bundle carries it. The page's script is Scalar's browser bundle as installed
// (@scalar/api-reference), served from here: nothing the page loads comes from another host, so it
// works offline and under a CSP that allows only this origin.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import { SettingsError } from "../../core/settings/settings.ts";

export const API_REFERENCE_PATH = "/docs";
export const API_REFERENCE_SCRIPT_PATH = `${API_REFERENCE_PATH}/scalar.js`;

const SCRIPT_FILE = createRequire(import.meta.url).resolve("@scalar/api-reference/browser/standalone.js");

type Handler = (request: Request) => Response | Promise<Response>;

/** `fetch` with /docs in front of it; every other request goes to `fetch` unchanged. */
export function withApiReference(fetch: Handler): Handler {
  // Read on first use (3.5 MB), then kept: the installed file does not change under a running server.
  let script: Promise<Buffer> | undefined;
  const docs = new Hono()
    .get(
      API_REFERENCE_PATH,
      Scalar({
        url: "/openapi.json",
        pageTitle: "API reference",
        cdn: API_REFERENCE_SCRIPT_PATH,
        // Scalar's fonts come from its own host; the page uses the system's instead.
        withDefaultFonts: false,
      }),
    )
    .get(API_REFERENCE_SCRIPT_PATH, async (c) => {
      script ??= readFile(SCRIPT_FILE);
      return c.body(new Uint8Array(await script), 200, {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "public, max-age=3600",
      });
    })
    .all("*", (c) => fetch(c.req.raw));
  return (request) => docs.fetch(request);
}

/** Whether API_DOCS asks for the reference: `on` or `off` (the default); anything else is a mistake. */
export function apiReferenceEnabled(value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "off") return false;
  if (value === "on") return true;
  throw new SettingsError("API_DOCS", 'must be "on" or "off"');
}
