import type { Hono } from "hono/tiny";
import type { AppEnv } from "../deps.ts";
import { type Capability, route } from "../route.ts";
import { openApiDocument } from "./document.ts";
import { OpenApiDocumentSchema } from "./schemas.ts";

/** `GET /openapi.json`: the document of `app`, whose routes `capabilities` and this one declared. */
export function openApi(app: Hono<AppEnv>, capabilities: readonly Capability[]): Capability {
  // Made on first request, once every route is on the app, and kept.
  let document: ReturnType<typeof openApiDocument> | undefined;
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
          document ??= openApiDocument(app, [...capabilities, self]).catch((error) => {
            document = undefined; // the next request tries again
            throw error;
          });
          return c.json(await document);
        },
      }),
    ],
  };
  return self;
}
