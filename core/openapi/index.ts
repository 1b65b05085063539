import type { Hono } from "hono/tiny";
import type { AppEnv } from "../deps.ts";
import { type Capability, route } from "../route.ts";
import { openApiDocument } from "./document.ts";
import { OpenApiDocumentSchema } from "./schemas.ts";

/** `GET /openapi.json`: the document of `app`, whose routes `capabilities` and this one declared. */
export function openApi(app: Hono<AppEnv>, capabilities: readonly Capability[]): Capability {
  // Made on first request, once every route is on the app, and kept as the text it is answered
  // with: an anonymous route, it must cost a flood of requests no more than copying that text.
  let document: Promise<string> | undefined;
  const self: Capability = {
    tag: "operations",
    schemas: { OpenApiDocument: OpenApiDocumentSchema },
    routes: () => [
      route({
        method: "GET",
        path: "/openapi.json",
        access: "public",
        summary: "This document.",
        responses: { 200: { description: "The OpenAPI 3.1 document of this API.", body: OpenApiDocumentSchema } },
        problems: {},
        handler: async (c) => {
          document ??= openApiDocument(app, [...capabilities, self]).then(JSON.stringify, (error) => {
            document = undefined; // the next request tries again
            throw error;
          });
          return c.body(await document, 200, { "content-type": "application/json" });
        },
      }),
    ],
  };
  return self;
}
