// The interactive API reference (Scalar) at /docs, over the app's own /openapi.json. Only the Node
// server mounts it, and only when asked (API_DOCS=on; `npm start` asks): it is kept out of core, so
// no deployed bundle carries it.
import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import { SettingsError } from "../../core/settings.ts";

export const API_REFERENCE_PATH = "/docs";

type Handler = (request: Request) => Response | Promise<Response>;

/** `fetch` with /docs in front of it; every other request goes to `fetch` unchanged. */
export function withApiReference(fetch: Handler): Handler {
  const docs = new Hono()
    .get(API_REFERENCE_PATH, Scalar({ url: "/openapi.json", pageTitle: "API reference" }))
    .all("*", (c) => fetch(c.req.raw));
  return (request) => docs.fetch(request);
}

/** Whether API_DOCS asks for the reference: `on` or `off` (the default); anything else is a mistake. */
export function apiReferenceEnabled(value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "off") return false;
  if (value === "on") return true;
  throw new SettingsError("API_DOCS", 'must be "on" or "off"');
}
