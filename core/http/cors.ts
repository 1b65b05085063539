// CORS for the browser origins CORS_ORIGINS lists (exact match): Hono's `cors`, asked only for a
// listed origin, so an origin not listed gets no CORS header at all (Hono would still expose
// headers and answer every OPTIONS). Bearer tokens only: no credentials mode.
import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { Router } from "hono/router";
import type { RouterRoute } from "hono/types";
import type { AppDeps, AppEnv } from "../deps.ts";
import { parsedUrl } from "../lib/url.ts";
import { fieldValue, withoutSpacesAround } from "./field-value.ts";

/**
 * The request headers the contract uses, and W3C Trace Context's (a page that traces its calls
 * sends them, docs/observability.md): a preflight allows exactly these.
 */
export const CORS_REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "If-Match",
  "If-None-Match",
  "Idempotency-Key",
  "X-Request-Id",
  "traceparent",
  "tracestate",
] as const;

/** The response headers a page needs for conditional writes, retries and tracing. */
export const CORS_EXPOSED_HEADERS = [
  "ETag",
  "Location",
  "Retry-After",
  "Idempotent-Replayed",
  "X-Link-Source",
  "X-Request-Id",
  "Server-Timing",
  "RateLimit",
  "RateLimit-Policy",
] as const;

/** How long a browser may keep a preflight's answer (Chromium caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 600;

/** The methods a path serves, in the route table (HEAD wherever GET is); none for an unknown path. */
export type MethodsOfPath = (path: string) => readonly string[];

/**
 * Answers a listed origin's preflight before anything else runs (the token check included) and
 * marks its answers; every answer varies on Origin. For an app with at least one origin listed.
 */
export function crossOrigin(deps: Pick<AppDeps, "settings">, methodsOf: MethodsOfPath): MiddlewareHandler<AppEnv> {
  const origins = deps.settings.corsOrigins;
  const listed = cors({
    // Only ever asked for an origin already found in CORS_ORIGINS, as sent: without its spaces.
    origin: withoutSpacesAround,
    allowMethods: (_origin, c) => methodsOf(c.req.path) as string[],
    allowHeaders: CORS_REQUEST_HEADERS as unknown as string[],
    exposeHeaders: CORS_EXPOSED_HEADERS as unknown as string[],
    maxAge: CORS_MAX_AGE_SECONDS,
  });
  return async (c, next) => {
    const origin = fieldValue(c.req.raw.headers, "origin");
    const isListed = origin !== undefined && origins.includes(origin);
    if (isListed && !isOtherOptions(c, methodsOf)) return listed(c, next);
    await next();
    // Hono's `cors` answers every OPTIONS itself: one that goes the way of any request is
    // marked here, as every answer to a listed origin is.
    if (isListed) markForListedOrigin(c, origin);
    c.header("Vary", "Origin", { append: true });
  };
}

/** What `cors` sets on an answer that is no preflight's: the origin, and the headers it may read. */
function markForListedOrigin(c: Context<AppEnv>, origin: string) {
  c.header("Access-Control-Allow-Origin", origin);
  c.header("Access-Control-Expose-Headers", CORS_EXPOSED_HEADERS.join(","));
}

/**
 * An OPTIONS that is no preflight (or asks about a path that serves nothing) goes the way every
 * request does (401, 404, 405 and their problems): Hono's `cors` would answer any OPTIONS with 204.
 * The path is the one the app routes by (one trailing slash the same path); a target that makes
 * no URL serves nothing, as the app's first step refuses it.
 */
function isOtherOptions(c: Context<AppEnv>, methodsOf: MethodsOfPath): boolean {
  const request = c.req.raw;
  return (
    request.method === "OPTIONS" &&
    (!request.headers.has("access-control-request-method") ||
      parsedUrl(request.url) === undefined ||
      methodsOf(c.req.path).length === 0)
  );
}

/**
 * The methods `router` (an app's own) serves at a path, among `methods`: those whose first
 * answering handler there is a route of their own, not only middleware, nor a 405 (`isRefusal`)
 * of a path declared before a pattern that also names it (`/v1/assets/import` before
 * `/v1/assets/:id`); HEAD wherever GET is. Asked of the app's router, so a path matches as its
 * requests do, and no second router is built.
 */
export function methodsOfRouter(
  router: Router<[unknown, RouterRoute]>,
  methods: readonly string[],
  isRefusal: (handler: unknown) => boolean,
): MethodsOfPath {
  const serves = (method: string, path: string) => {
    const answering = router
      .match(method, path)[0]
      .find(([[handler, route]]) => route.method === method || isRefusal(handler));
    return answering?.[0][1].method === method;
  };
  return (path) => methods.filter((method) => serves(method === "HEAD" ? "GET" : method, path));
}
