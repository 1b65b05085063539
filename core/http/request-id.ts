import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../deps.ts";
import type { Logger } from "../log.ts";
import { traceLogFields } from "../telemetry/tracing.ts";
import { fieldValue } from "./field-value.ts";
import { matchedRoute } from "./matched-route.ts";
import { loggedMethod } from "./methods.ts";

// Not hono/request-id: it echoes only ids of [A-Za-z0-9_=-], its pattern fixed, so an id with
// `.` or `:` (`req-42.abc:DEF_9`, as tracers write them) would be replaced, and one with `=`
// echoed; and the log line is this middleware's either way.
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// A refused token's reason, as the answer's Bearer challenge gave it (core/tokens/refusal.ts).
const REFUSAL = /error_description="([^"]*)"/;

/** Echoes a sane `X-Request-Id` (or makes one) and logs one line per request. */
export function requestLogging(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const offered = fieldValue(c.req.raw.headers, "x-request-id");
    const requestId = offered && CLIENT_REQUEST_ID.test(offered) ? offered : crypto.randomUUID();
    c.set("requestId", requestId);
    await next();
    c.res.headers.set("x-request-id", requestId);
    const refusal = c.res.headers.get("www-authenticate")?.match(REFUSAL)?.[1];
    logger.log("info", "request", {
      requestId,
      ...loggedMethod(c.req.method),
      // The route's pattern (ids stay out of the log), also when a middleware answered for it.
      route: matchedRoute(c) ?? c.req.routePath,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      // Also for a request the sampler left out: its trace id, when the caller sent one, is the
      // caller's, in the caller's lines too.
      ...traceLogFields(c.get("trace")),
      ...(refusal === undefined ? {} : { tokenRefused: refusal }),
    });
  };
}
