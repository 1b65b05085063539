// A route's declaration as an OpenAPI operation, for hono-openapi's describeRoute: what the route
// says of itself, and what every route of its kind answers besides (the shared problems and headers).
import type { DescribeRouteOptions } from "hono-openapi";
import { resolver } from "hono-openapi";
import * as v from "valibot";
import { PROBLEM_CONTENT_TYPE, type ProblemCode, problemTitles } from "../http/problem.ts";
import type { Route } from "../route.ts";
import { conversion, jsonSchemaOf } from "./json-schema.ts";
import type { BodySpec, HeaderSpec, OperationSpec } from "./operations.ts";

/** The name of a schema of `components.schemas`. */
export type NameOf = (schema: v.GenericSchema) => string;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const OPERATION_FIELDS = ["operationId", "summary", "tags", "security", "parameters", "requestBody", "responses"];

/**
 * The operation of a route, as describeRoute takes it; its query's parameters come from its
 * validator (core/mount.ts). Made when the document is first asked for, not with the app: an app
 * is built at every start, the document seldom.
 */
export function operation(route: Route, tag: string, nameOf: NameOf): DescribeRouteOptions {
  let made: DescribeRouteOptions | undefined;
  const field = (name: string) => ({
    enumerable: true,
    get: () => (made ??= operationOf(route, tag, nameOf))[name as "tags"],
  });
  return Object.defineProperties({}, Object.fromEntries(OPERATION_FIELDS.map((name) => [name, field(name)])));
}

function operationOf(route: Route, tag: string, nameOf: NameOf): DescribeRouteOptions {
  return {
    operationId: operationId(route),
    summary: route.summary,
    tags: [tag],
    ...(route.access === "public" ? { security: [] } : {}),
    parameters: parameters(route),
    ...(route.body ? { requestBody: requestBody(route.body) } : {}),
    responses: responses(route, nameOf),
  } as DescribeRouteOptions;
}

/** `GET /v1/assets/:id` → `getV1AssetsId`. */
function operationId({ method, path }: Route): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
}

function parameters(spec: Pick<OperationSpec<undefined, undefined>, "params" | "headers">) {
  const path = Object.entries(spec.params ?? {}).map(([name, p]) => ({
    name,
    in: "path",
    required: true,
    description: p.description,
    schema: jsonSchemaOf(p.schema),
  }));
  const headers = Object.entries(spec.headers ?? {}).map(([name, header]) => ({
    name,
    in: "header",
    required: header.required ?? false,
    description: header.description,
    schema: header.schema ? jsonSchemaOf(header.schema) : { type: "string" },
  }));
  // Any value is accepted: one outside the pattern is replaced, never refused (core/http/request-id.ts).
  const requestId = {
    name: "x-request-id",
    in: "header",
    required: false,
    description:
      "Names the request in the log and the answer when it matches `^[A-Za-z0-9._:-]{1,128}$`; any other value is replaced by a fresh id.",
    schema: { type: "string" },
  };
  return [...path, ...headers, requestId];
}

function requestBody(body: BodySpec) {
  const schema = resolver(body.schema, { options: conversion });
  return {
    required: !body.optional,
    ...(body.description ? { description: body.description } : {}),
    content: Object.fromEntries(body.mediaTypes.map((media) => [media, { schema }])),
  };
}

/** Problems every operation of a kind can answer, besides its own. */
function sharedProblems(route: Route): Partial<Record<number, ProblemCode[]>> {
  const shared: Partial<Record<number, ProblemCode[]>> = { 500: ["internal_error", "misconfigured"] };
  if (route.access !== "public") {
    Object.assign(shared, {
      401: ["unauthorized"],
      429: ["rate_limited"],
      503: ["database_unavailable", "keys_unavailable"],
    });
    // A write whose answer was lost on the way back from the database may or may not have been made.
    if (route.method !== "GET") shared[504] = ["database_outcome_unknown"];
  }
  if (route.access === "admin") shared[403] = ["forbidden"];
  if (route.body) {
    Object.assign(shared, {
      400: ["malformed_request"],
      413: ["payload_too_large"],
      415: ["unsupported_media_type"],
      422: ["validation_failed"],
    });
  }
  // A query parameter the route does not take is refused (core/http/query.ts), where it has no query too.
  if (!route.ignoresQuery) shared[422] = ["validation_failed"];
  return shared;
}

function sharedHeaders(route: Route, status: number): Record<string, HeaderSpec> {
  if (status === 401)
    return { "www-authenticate": { description: "The Bearer challenge (RFC 6750).", required: true } };
  if (status === 503) return { "retry-after": { description: "Seconds to wait.", required: true } };
  if (status === 405) return { allow: { description: "The methods the path serves.", required: true } };
  if (status === 429)
    return { "retry-after": { description: "Seconds to wait.", required: true }, ...rateLimitHeaders(true) };
  if (status === 415) {
    return {
      "accept-encoding": { description: "`identity` when a Content-Encoding was refused." },
      ...(route.method === "PATCH"
        ? { "accept-patch": { description: "The patch formats accepted.", required: true } }
        : {}),
    };
  }
  return {};
}

/** Every answer of an operation behind the token check, once the token is accepted, is limited. */
const limitedHeaders = (route: Route, status: number) =>
  route.path.startsWith("/v1/") && status !== 401 && status !== 429 ? rateLimitHeaders(false) : {};

/** Every answer under /v1 is one caller's, which no cache keeps (core/app.ts). */
const privateHeaders = (route: Route): Record<string, HeaderSpec> =>
  route.path.startsWith("/v1/") ? { "cache-control": NO_STORE } : {};
const NO_STORE: HeaderSpec = {
  description: "`no-store`: the answer is one caller's, which no cache, shared or private, keeps.",
  schema: v.literal("no-store"),
  required: true,
};

/** The IETF httpapi rate-limit headers draft's fields (core/http/rate-limit.ts). */
const rateLimitHeaders = (required: boolean): Record<string, HeaderSpec> => ({
  "ratelimit-policy": {
    description: 'The quotas of this operation: `"caller-writes";q=1200;w=60, "tenant-writes";q=12000;w=60`.',
    required,
  },
  ratelimit: { description: 'What is left of them: `"caller-writes";r=1199;t=42, …`.', required },
});

/** Sent on every answer to a browser origin listed in CORS_ORIGINS (core/http/cors.ts), and only there. */
const CROSS_ORIGIN_HEADERS: Record<string, HeaderSpec> = {
  "access-control-allow-origin": { description: "The calling origin, when CORS_ORIGINS lists it." },
  "access-control-expose-headers": { description: "The headers a page of that origin may read." },
  vary: { description: "`Origin` whenever CORS_ORIGINS lists any origin." },
};

/** Sent on every answer when SERVER_TIMING=on (core/http/server-timing.ts), and only then. */
const SERVER_TIMING_HEADER: Record<string, HeaderSpec> = {
  "server-timing": {
    description:
      "With SERVER_TIMING=on: `total`, `db`, `kv`, `auth` and `limit` (each `dur` in ms) and `runtime` (its `desc` the runtime).",
  },
};

function responses(route: Route, nameOf: NameOf) {
  const problems: Partial<Record<number, ProblemCode[]>> = { ...sharedProblems(route) };
  for (const [status, codes = []] of Object.entries(route.problems)) {
    problems[Number(status)] = [...new Set([...(problems[Number(status)] ?? []), ...codes])];
  }
  const statuses = [...new Set([...Object.keys(route.responses), ...Object.keys(problems)].map(Number))].sort();
  return Object.fromEntries(
    statuses.map((status) => {
      const described = route.responses[status];
      const headers = headerObjects({
        ...CROSS_ORIGIN_HEADERS,
        ...SERVER_TIMING_HEADER,
        ...limitedHeaders(route, status),
        ...privateHeaders(route),
        ...sharedHeaders(route, status),
        ...described?.headers,
      });
      const codes = problems[status];
      if (codes) return [status, problemResponse(status, codes, headers)];
      const content = described!.body ? { "application/json": { schema: ref(nameOf(described!.body)) } } : undefined;
      return [status, { description: described!.description, headers, ...(content ? { content } : {}) }];
    }),
  );
}

function headerObjects(headers: Record<string, HeaderSpec>) {
  const objects: Record<string, unknown> = { "x-request-id": { $ref: "#/components/headers/RequestId" } };
  for (const [name, header] of Object.entries(headers)) {
    objects[name] = {
      description: header.description,
      required: header.required ?? false,
      schema: header.schema ? jsonSchemaOf(header.schema) : { type: "string" },
    };
  }
  return objects;
}

function problemResponse(status: number, codes: ProblemCode[], headers: Record<string, unknown>) {
  const schema = {
    allOf: [ref("Problem"), { type: "object", properties: { status: { const: status }, code: { enum: codes } } }],
  };
  return {
    description: codes.map((code) => `\`${code}\`: ${problemTitles[code]}`).join("; "),
    headers,
    content: { [PROBLEM_CONTENT_TYPE]: { schema } },
  };
}
