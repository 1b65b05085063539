// One server span per request, named by its route (`PUT /v1/links/{provider}/{externalAccountId}`),
// continuing the caller's trace when it sends `traceparent`; the ports, the token check and the
// rate-limit count as its children. Sent after the response where the platform has `waitUntil`.

import type { Span } from "@opentelemetry/api";
import { SpanStatusCode } from "@opentelemetry/api";
import type { Context, MiddlewareHandler } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import { matchedRoute } from "../http/matched-route.ts";
import { isRecognizedMethod } from "../http/methods.ts";
import { waitUntilOf } from "../http/wait-until.ts";
import { failed, startServerSpan, type Telemetry, tracedKv, tracedPart, tracedSql } from "./tracing.ts";

export function requestTracing(deps: AppDeps, telemetry: Telemetry): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { span, context } = startServerSpan(telemetry, c.req.raw);
    // Named in the request's log lines, recorded or not.
    c.set("trace", span.spanContext());
    // A request the sampler leaves out: under every standard sampler so are its children (one
    // decision per trace id, or the parent's), so none is started.
    const recording = span.isRecording();
    if (recording) {
      c.set("sql", tracedSql(deps.sql, telemetry, context));
      c.set("kv", tracedKv(deps.kv, telemetry, context));
      c.set("timed", tracedPart(telemetry, context));
    }
    try {
      await next();
      if (recording) describeAnswer(span, c);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
      // Workers and Compute end an invocation's work with it: an export this response's spans
      // leave in is kept alive past the answer. Elsewhere the exporter's own timer sends batches.
      const sending = telemetry.afterResponse?.();
      if (sending) waitUntilOf(c)?.(sending);
    }
  };
}

/**
 * The route the request matched, as the API documents it (`:provider` is `{provider}`), even when
 * a middleware answered before it ran (a refused token); none when no route matched.
 */
export function routeOf(c: Context<AppEnv>): string | undefined {
  const path = matchedRoute(c);
  if (path === undefined) return undefined;
  let route = documentedPaths.get(path);
  if (route === undefined) {
    route = path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}");
    documentedPaths.set(path, route);
  }
  return route;
}

/** Each route's path as the API documents it, keyed by Hono's: as many as the app declares. */
const documentedPaths = new Map<string, string>();

function describeAnswer(span: Span, c: Context<AppEnv>): void {
  const route = routeOf(c);
  const status = c.res.status;
  if (route) {
    const method = c.req.method;
    span.updateName(`${isRecognizedMethod(method) ? method : "HTTP"} ${route}`);
    span.setAttribute("http.route", route);
  }
  span.setAttribute("http.response.status_code", status);
  // Set where the problem became the answer: reading the body back (a clone) is not reliable on
  // every runtime's Response.
  const code = c.get("problemCode");
  if (code) span.setAttribute("problem.code", code);
  // A refusal is the client's (4xx); only the server's own failures mark the span failed.
  if (status >= 500) {
    span.setAttribute("error.type", String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
}
