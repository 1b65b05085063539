// The document routes' operations and what they answer.
import * as v from "valibot";
import { idempotencyKey, json, location, type Operations, replayed } from "../openapi/operations.ts";
import { timestamp } from "../openapi/schemas.ts";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from "./idempotency.ts";
import { NewDocumentSchema, PageQuerySchema } from "./routes.ts";

const DocumentSchema = v.strictObject({
  id: v.string(),
  tenantId: v.string(),
  docNumber: v.pipe(v.number(), v.integer(), v.minValue(1)),
  contractId: v.string(),
  title: v.nullable(v.string()),
  createdAt: timestamp,
});

export const schemas = {
  Document: DocumentSchema,
  DocumentPage: v.strictObject({
    items: v.array(DocumentSchema),
    next: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))),
  }),
};

export const operations: Operations<keyof typeof schemas> = {
  "POST /v1/documents": {
    summary: "Create a document with the tenant's next number.",
    headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey },
    body: json(NewDocumentSchema),
    responses: {
      201: {
        description: "Created (or replayed).",
        body: "Document",
        headers: { location, [IDEMPOTENT_REPLAYED_HEADER]: replayed },
      },
    },
    problems: { 422: ["idempotency_key_reused"] },
  },
  "GET /v1/documents": {
    summary: "The tenant's documents, in number order.",
    query: PageQuerySchema,
    responses: { 200: { description: "One page.", body: "DocumentPage" } },
    problems: { 422: ["validation_failed"] },
  },
  "GET /v1/documents/:docNumber": {
    summary: "One document by number.",
    path: {
      docNumber: { description: "The document's number.", schema: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,15}$/)) },
    },
    responses: { 200: { description: "The document.", body: "Document" } },
    problems: { 404: ["not_found"] },
  },
};
