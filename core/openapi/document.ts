// The OpenAPI 3.1 document, made by hono-openapi from the app's own routes: each route's
// declaration is on it (describeRoute, and its query's validator), converted by the rules of
// json-schema.ts; what the whole document says besides (its title, security, shared components) is here.

import type { Hono } from "hono/tiny";
import { type GenerateSpecOptions, generateSpecs } from "hono-openapi";
import type * as v from "valibot";
import type { AppEnv } from "../deps.ts";
import type { Capability } from "../route.ts";
import type { NameOf } from "./describe.ts";
import { jsonSchemaOf } from "./json-schema.ts";
import { ProblemSchema } from "./schemas.ts";

/** `components.schemas`: the shared Problem, then each capability's own, by name. */
export function namedSchemas(capabilities: readonly Pick<Capability, "schemas">[]): Map<v.GenericSchema, string> {
  const named = new Map<v.GenericSchema, string>([[ProblemSchema, "Problem"]]);
  const names = new Set(named.values());
  for (const { schemas } of capabilities) {
    for (const [name, schema] of Object.entries(schemas)) {
      if (names.has(name)) throw new Error(`OpenAPI: two capabilities name the schema ${name}`);
      names.add(name);
      named.set(schema, name);
    }
  }
  return named;
}

/** Looks a response's schema up among the named ones: one a route answers must have a name. */
export const nameOf =
  (named: Map<v.GenericSchema, string>): NameOf =>
  (schema) => {
    const name = named.get(schema);
    if (!name) throw new Error("OpenAPI: a response body is a schema no capability names");
    return name;
  };

function documentation(capabilities: readonly Capability[], named: Map<v.GenericSchema, string>) {
  return {
    info: {
      title: "Edge functions: account links, assets with ETags, gapless documents",
      version: "1",
      description:
        "The HTTP contract of docs/API.md. Every error is application/problem+json (RFC 9457). " +
        "A method RFC 9110 defines that a path does not list here is 405 with Allow; a method token no RFC defines is 501.",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    security: [{ bearer: [] }],
    tags: [...new Set(capabilities.map(({ tag }) => tag))].map((name) => ({ name })),
    components: {
      schemas: Object.fromEntries([...named].map(([schema, name]) => [name, jsonSchemaOf(schema)])),
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
  } as GenerateSpecOptions["documentation"];
}

/** The document of `app`, whose routes these capabilities declared. */
export function openApiDocument(app: Hono<AppEnv>, capabilities: readonly Capability[]) {
  return generateSpecs(app, {
    documentation: documentation(capabilities, namedSchemas(capabilities)),
    // /openapi.json is an operation, not a static file; a validator's failure is the contract's 422, declared per route.
    excludeStaticFile: false,
    defaultValidationErrorResponse: false,
  });
}
