// The OpenAPI 3.1 document, generated from the app's own route table, the valibot schemas the routes
// validate with (converted by @valibot/to-json-schema) and what each capability says of its routes.
import { type ConversionConfig, type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { CAPABILITIES } from "../capabilities.ts";
import type { ApiDescription } from "../capability.ts";
import { PROBLEM_CONTENT_TYPE, type ProblemCode, problemTitles } from "../http/problem.ts";
import type { HeaderSpec, OperationSpec } from "./operations.ts";
import { OpenApiDocumentSchema, ProblemSchema } from "./schemas.ts";

interface Route {
  method: string;
  path: string;
}

/** The methods operations are documented for; HEAD is GET without a body. */
const DOCUMENTED_METHODS = ["GET", "PUT", "POST", "PATCH", "DELETE"];

const conversion: ConversionConfig = {
  target: "draft-2020-12",
  // Checks JSON Schema cannot say (a lone surrogate, a blank after trimming) stay in the prose.
  errorMode: "ignore",
  // core/http/validation.ts's maxCodePoints counts what JSON Schema's maxLength counts: code points.
  overrideAction: ({ valibotAction, jsonSchema }) =>
    "maxCodePoints" in valibotAction ? { ...jsonSchema, maxLength: valibotAction.maxCodePoints as number } : undefined,
};

function schemaOf(schema: v.GenericSchema): JsonSchema {
  const { $schema: _, ...rest } = toJsonSchema(schema, conversion);
  return rest;
}

/** The routes of a Hono route table that serve requests: not middleware, not a path's catch-all 405. */
export function servedRoutes(routes: readonly Route[]): Route[] {
  const keys = new Set(routes.filter((r) => DOCUMENTED_METHODS.includes(r.method)).map((r) => routeKey(r)));
  return [...keys].map((key) => {
    const [method, path] = key.split(" ") as [string, string];
    return { method, path };
  });
}

export const routeKey = ({ method, path }: Route) => `${method} ${path}`;

/** `/v1/assets/:id` → `/v1/assets/{id}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The document's own route, served by the app beside the capabilities'. */
const thisDocument: ApiDescription = {
  tag: "operations",
  public: true,
  operations: {
    "GET /openapi.json": {
      summary: "This document.",
      responses: { 200: { description: "The OpenAPI 3.1 document of this API.", body: "OpenApiDocument" } },
      problems: {},
    },
  },
  schemas: { OpenApiDocument: OpenApiDocumentSchema },
};

/** What the document describes: the capabilities, then itself. */
const describedBy = (capabilities: readonly ApiDescription[]) => [...capabilities, thisDocument];

/** An operation and what it inherits from the capability that describes it. */
interface Described {
  spec: OperationSpec;
  tag: string;
  public: boolean;
}

/** Every operation the capabilities describe (and the document's own), by "METHOD path". */
export function describedOperations(capabilities: readonly ApiDescription[] = CAPABILITIES): Map<string, Described> {
  const described = new Map<string, Described>();
  for (const { tag, public: isPublic = false, operations } of describedBy(capabilities)) {
    for (const [key, spec] of Object.entries(operations)) {
      if (described.has(key)) throw new Error(`OpenAPI: two capabilities describe ${key}`);
      described.set(key, { spec, tag, public: isPublic });
    }
  }
  return described;
}

/** `components.schemas`: the shared Problem, each capability's own, then the document's. */
function namedSchemas(capabilities: readonly ApiDescription[]): Record<string, v.GenericSchema> {
  const named: Record<string, v.GenericSchema> = { Problem: ProblemSchema };
  for (const { schemas } of describedBy(capabilities)) {
    for (const [name, schema] of Object.entries(schemas)) {
      if (name in named) throw new Error(`OpenAPI: two capabilities name the schema ${name}`);
      named[name] = schema;
    }
  }
  return named;
}

/** The document for these routes; a route no capability describes is left out (its test fails). */
export function openApiDocument(routes: readonly Route[], capabilities: readonly ApiDescription[] = CAPABILITIES) {
  const described = describedOperations(capabilities);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of servedRoutes(routes)) {
    const operationOf = described.get(routeKey(route));
    if (!operationOf) continue;
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation(route, operationOf);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Edge functions: account links, assets with ETags, gapless documents",
      version: "1",
      description:
        "The HTTP contract of docs/API.md. Every error is application/problem+json (RFC 9457). " +
        "A method RFC 9110 defines that a path does not list here is 405 with Allow; a method token no RFC defines is 501.",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    security: [{ bearer: [] }],
    tags: [...new Set(describedBy(capabilities).map(({ tag }) => tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(
        Object.entries(namedSchemas(capabilities)).map(([name, schema]) => [name, schemaOf(schema)]),
      ),
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "HS256; claims sub, tid, role." },
      },
      headers: {
        RequestId: {
          description: "The request's id (the client's X-Request-Id when sane).",
          required: true,
          schema: { type: "string" },
        },
      },
    },
  };
}

function operation(route: Route, { spec, tag, public: isPublic }: Described) {
  return {
    operationId: operationId(route),
    summary: spec.summary,
    tags: [tag],
    ...(isPublic ? { security: [] } : {}),
    parameters: parameters(spec),
    ...(spec.body ? { requestBody: requestBody(spec.body) } : {}),
    responses: responses(route, spec, isPublic),
  };
}

function operationId({ method, path }: Route): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
}

function parameters(spec: OperationSpec) {
  const path = Object.entries(spec.path ?? {}).map(([name, p]) => ({
    name,
    in: "path",
    required: true,
    description: p.description,
    schema: schemaOf(p.schema),
  }));
  const query = Object.entries(spec.query?.entries ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: schema.type !== "optional",
    schema: schemaOf(schema),
  }));
  const headers = Object.entries(spec.headers ?? {}).map(([name, header]) => ({
    name,
    in: "header",
    required: header.required ?? false,
    description: header.description,
    schema: header.schema ? schemaOf(header.schema) : { type: "string" },
  }));
  const requestId = {
    name: "x-request-id",
    in: "header",
    required: false,
    schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
  };
  return [...path, ...query, ...headers, requestId];
}

function requestBody(body: NonNullable<OperationSpec["body"]>) {
  const schema = schemaOf(body.schema);
  return {
    required: !body.optional,
    ...(body.description ? { description: body.description } : {}),
    content: Object.fromEntries(body.mediaTypes.map((media) => [media, { schema }])),
  };
}

/** Problems every operation of a kind can answer, besides its own. */
function sharedProblems(route: Route, spec: OperationSpec, isPublic: boolean): Partial<Record<number, ProblemCode[]>> {
  const shared: Partial<Record<number, ProblemCode[]>> = { 500: ["internal_error", "misconfigured"] };
  if (!isPublic) {
    Object.assign(shared, {
      401: ["unauthorized"],
      429: ["rate_limited"],
      503: ["database_unavailable", "keys_unavailable"],
    });
  }
  // A write whose answer was lost on the way back from the database may or may not have been made.
  if (!isPublic && route.method !== "GET") shared[504] = ["database_outcome_unknown"];
  if (spec.body) {
    Object.assign(shared, {
      400: ["malformed_request"],
      413: ["payload_too_large"],
      415: ["unsupported_media_type"],
      422: ["validation_failed"],
    });
  }
  return shared;
}

function sharedHeaders(route: Route, status: number): Record<string, HeaderSpec> {
  if (status === 401)
    return { "www-authenticate": { description: "The Bearer challenge (RFC 6750).", required: true } };
  if (status === 503) return { "retry-after": { description: "Seconds to wait.", required: true } };
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

/** The IETF httpapi rate-limit headers draft's fields (core/http/rate-limit.ts). */
const rateLimitHeaders = (required: boolean): Record<string, HeaderSpec> => ({
  "ratelimit-policy": {
    description: 'The quotas of this operation: `"caller-writes";q=1200;w=60, "tenant-writes";q=12000;w=60`.',
    required,
  },
  ratelimit: { description: 'What is left of them: `"caller-writes";r=1199;t=42, …`.', required },
});

function responses(route: Route, spec: OperationSpec, isPublic: boolean) {
  const problems: Partial<Record<number, ProblemCode[]>> = { ...sharedProblems(route, spec, isPublic) };
  for (const [status, codes = []] of Object.entries(spec.problems)) {
    problems[Number(status)] = [...new Set([...(problems[Number(status)] ?? []), ...codes])];
  }
  const statuses = [...new Set([...Object.keys(spec.responses), ...Object.keys(problems)].map(Number))].sort();
  return Object.fromEntries(
    statuses.map((status) => {
      const described = spec.responses[status];
      const headers = headerObjects({
        ...limitedHeaders(route, status),
        ...sharedHeaders(route, status),
        ...described?.headers,
      });
      const codes = problems[status];
      if (codes) return [status, problemResponse(status, codes, headers)];
      const content = described!.body ? { "application/json": { schema: ref(described!.body) } } : undefined;
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
      schema: header.schema ? schemaOf(header.schema) : { type: "string" },
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
