// Checks an answer against the OpenAPI document the server itself serves: the status is one the
// operation lists, required headers are there and well-formed, the body matches the schema of its
// media type (problem codes included). A JSON Schema subset: exactly the keywords the generator
// emits; any other keyword fails loudly rather than being skipped.
import { expect } from "vitest";
import { RFC_9110_METHODS } from "../support/routes.ts";

export interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; headers?: Record<string, Header> };
}
interface Operation {
  responses: Record<string, Response>;
}
interface Response {
  headers?: Record<string, Header | Ref>;
  content?: Record<string, { schema: Schema }>;
}
interface Header {
  required?: boolean;
  schema?: Schema;
}
interface Ref {
  $ref: string;
}
type Schema = Record<string, any>;

export interface Exchange {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

/** Every way `exchange` departs from `document`; empty when it conforms. */
export function violations(document: OpenApi, exchange: Exchange): string[] {
  const problems: string[] = [];
  const { pathname } = new URL(exchange.url);
  const template = matchPath(Object.keys(document.paths), pathname);
  const method = exchange.method.toUpperCase();
  const operation = template && document.paths[template]![(method === "HEAD" ? "GET" : method).toLowerCase()];
  if (!operation) return impliedAnswer(document, exchange, template, problems);
  const response = operation.responses[String(exchange.status)];
  if (!response) return [`${exchange.status} is not a documented status of ${method} ${template}`];
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const resolved = resolveHeader(document, header);
    const value = exchange.headers.get(name);
    if (value === null) {
      if (resolved.required) problems.push(`header ${name} is required`);
    } else if (resolved.schema) {
      problems.push(...check(document, resolved.schema, value, `header ${name}`));
    }
  }
  checkBody(document, response, exchange, method, problems);
  return problems;
}

/** What the document implies where it has no operation: 404, 405 with its methods, 501, or 401 first. */
function impliedAnswer(document: OpenApi, exchange: Exchange, template: string | undefined, problems: string[]) {
  const method = exchange.method.toUpperCase();
  // A HEAD answer has no body to name its code: its status says it.
  const code = method === "HEAD" ? STATUS_CODES[exchange.status] : problemCode(exchange);
  const authFirst = exchange.status === 401 && /^\/v1(\/|$)/.test(new URL(exchange.url).pathname);
  if (!RFC_9110_METHODS.includes(method)) {
    if (!(exchange.status === 501 && code === "not_implemented"))
      problems.push(`an unrecognized method must be 501, got ${exchange.status}`);
  } else if (!template) {
    if (!(exchange.status === 404 && code === "not_found") && !(authFirst && code === "unauthorized")) {
      problems.push(`an undocumented path must be 404 not_found, got ${exchange.status} ${code}`);
    }
  } else if (!(authFirst && code === "unauthorized")) {
    const documented = Object.keys(document.paths[template]!).map((m) => m.toUpperCase());
    if (documented.includes("GET")) documented.push("HEAD");
    const allow = (exchange.headers.get("allow") ?? "")
      .split(",")
      .map((m) => m.trim())
      .filter(Boolean);
    if (exchange.status !== 405 || code !== "method_not_allowed")
      problems.push(`${method} ${template} must be 405, got ${exchange.status}`);
    else if (allow.sort().join() !== documented.sort().join())
      problems.push(`Allow ${allow} is not the documented ${documented}`);
  }
  return problems;
}

const STATUS_CODES: Record<number, string> = {
  401: "unauthorized",
  404: "not_found",
  405: "method_not_allowed",
  501: "not_implemented",
};

function problemCode(exchange: Exchange): string | undefined {
  if (!(exchange.headers.get("content-type") ?? "").startsWith("application/problem+json")) return undefined;
  try {
    return JSON.parse(exchange.text).code;
  } catch {
    return undefined;
  }
}

function checkBody(document: OpenApi, response: Response, exchange: Exchange, method: string, problems: string[]) {
  if (method === "HEAD" || !response.content) {
    if (exchange.text !== "") problems.push(`${exchange.status} must have no body`);
    return;
  }
  const media = (exchange.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const content = response.content[media];
  if (!content) return void problems.push(`media type "${media}" is not documented for ${exchange.status}`);
  let body: unknown;
  try {
    body = JSON.parse(exchange.text);
  } catch {
    return void problems.push("the body is not JSON");
  }
  problems.push(...check(document, content.schema, body, "body"));
}

/** The most specific template matching the path (`/v1/assets/import` before `/v1/assets/{id}`). */
function matchPath(templates: string[], pathname: string): string | undefined {
  // The router ignores one trailing slash (API.md): /v1/assets/ is /v1/assets.
  const segments = (pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname).split("/");
  const matching = templates.filter((template) => {
    const parts = template.split("/");
    return (
      parts.length === segments.length &&
      parts.every((part, i) => (/^\{.+\}$/.test(part) ? segments[i] !== "" : part === segments[i]))
    );
  });
  const literals = (template: string) => template.split("/").filter((part) => !part.startsWith("{")).length;
  return matching.sort((a, b) => literals(b) - literals(a))[0];
}

function resolveHeader(document: OpenApi, header: Header | Ref): Header {
  if ("$ref" in header) return document.components.headers![header.$ref.split("/").pop()!]!;
  return header;
}

const IGNORED = new Set(["description", "default", "title", "examples"]);

/** Validates `value` against a JSON Schema (2020-12) of the subset the generator emits. */
export function check(document: OpenApi, schema: Schema, value: unknown, at: string): string[] {
  const errors: string[] = [];
  for (const [keyword, expected] of Object.entries(schema)) {
    if (IGNORED.has(keyword)) continue;
    const keywordCheck = keywords[keyword];
    if (!keywordCheck) {
      errors.push(`${at}: the checker does not know the keyword "${keyword}"`);
      continue;
    }
    errors.push(...keywordCheck(expected, value, at, document, schema));
  }
  return errors;
}

type KeywordCheck = (expected: any, value: unknown, at: string, document: OpenApi, schema: Schema) => string[];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const codePoints = (text: string) => [...text].length;
const fail = (condition: boolean, message: string) => (condition ? [] : [message]);

const types: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number",
  integer: (value) => Number.isInteger(value),
  boolean: (value) => typeof value === "boolean",
  null: (value) => value === null,
  array: Array.isArray,
  object: isObject,
};

const keywords: Record<string, KeywordCheck> = {
  $ref: (ref: string, value, at, document) =>
    check(document, document.components.schemas[ref.split("/").pop()!]!, value, at),
  allOf: (schemas: Schema[], value, at, document) => schemas.flatMap((s) => check(document, s, value, at)),
  anyOf: (schemas: Schema[], value, at, document) =>
    fail(
      schemas.some((s) => check(document, s, value, at).length === 0),
      `${at}: matches none of anyOf`,
    ),
  type: (type: string | string[], value, at) =>
    fail(
      [type].flat().some((t) => types[t]!(value)),
      `${at}: ${JSON.stringify(value)} is not of type ${type}`,
    ),
  enum: (options: unknown[], value, at) =>
    fail(options.includes(value), `${at}: ${JSON.stringify(value)} is not one of ${options}`),
  const: (constant: unknown, value, at) =>
    fail(value === constant, `${at}: ${JSON.stringify(value)} is not ${constant}`),
  pattern: (pattern: string, value, at) =>
    fail(
      typeof value !== "string" || new RegExp(pattern, "u").test(value),
      `${at}: "${value}" does not match ${pattern}`,
    ),
  minLength: (min: number, value, at) =>
    fail(typeof value !== "string" || codePoints(value) >= min, `${at}: shorter than ${min}`),
  maxLength: (max: number, value, at) =>
    fail(typeof value !== "string" || codePoints(value) <= max, `${at}: longer than ${max}`),
  minimum: (min: number, value, at) => fail(typeof value !== "number" || value >= min, `${at}: below ${min}`),
  maximum: (max: number, value, at) => fail(typeof value !== "number" || value <= max, `${at}: above ${max}`),
  format: (format: string, value, at) =>
    fail(
      format !== "date-time" ||
        (typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value)),
      `${at}: "${value}" is not a ${format}`,
    ),
  items: (items: Schema, value, at, document) =>
    Array.isArray(value) ? value.flatMap((item, i) => check(document, items, item, `${at}[${i}]`)) : [],
  required: (names: string[], value, at) =>
    isObject(value) ? names.filter((name) => !(name in value)).map((name) => `${at}: ${name} is required`) : [],
  properties: (properties: Record<string, Schema>, value, at, document) =>
    isObject(value)
      ? Object.entries(properties).flatMap(([name, s]) =>
          name in value ? check(document, s, value[name], `${at}.${name}`) : [],
        )
      : [],
  additionalProperties: (allowed: boolean, value, at, _document, schema) =>
    isObject(value) && allowed === false
      ? Object.keys(value)
          .filter((name) => !(name in (schema.properties ?? {})))
          .map((name) => `${at}: ${name} is not allowed`)
      : [],
};

/**
 * An answer hook for the conformance client: every answer must conform to the document the server
 * under test serves at /openapi.json (fetched once per server).
 */
export function conformsToServedDocument(baseUrl: () => string): (exchange: Exchange) => Promise<void> {
  const documents = new Map<string, Promise<OpenApi>>();
  const documentOf = (base: string) => {
    let document = documents.get(base);
    if (!document) {
      document = fetch(new URL("/openapi.json", base), { headers: { connection: "close" } }).then(async (response) => {
        if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
        return (await response.json()) as OpenApi;
      });
      documents.set(base, document);
    }
    return document;
  };
  return async (exchange) => {
    const found = violations(await documentOf(baseUrl()), exchange);
    expect(found, `${exchange.method} ${exchange.url} → ${exchange.status} ${exchange.text.slice(0, 300)}`).toEqual([]);
  };
}
