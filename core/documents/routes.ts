import type { Context } from "hono";
import * as v from "valibot";
import type { AppDeps, AppEnv } from "../deps.ts";
import { atMost, integerText, pageLimit } from "../http/pagination.ts";
import {
  conditionalReadProblems,
  evaluatePreconditions,
  notModified,
  preconditionFailed,
  readPreconditions,
  unversionedPreconditions,
  unversionedRead,
  unversionedReadAnswer,
} from "../http/preconditions.ts";
import { notFound } from "../http/problem.ts";
import { jsonObject, maxCodePoints, notBlank, printable } from "../http/validation.ts";
import {
  honouredIdempotencyKey,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyHeader,
  idempotencyOf,
  keyReused,
  replayedHeader,
  replayHeaders,
} from "../idempotency/key.ts";
import { json, location } from "../openapi/operations.ts";
import { timestamp } from "../openapi/schemas.ts";
import { route } from "../route.ts";
import { createDocument, type Document, findDocument, listDocuments } from "./repository.ts";

const NewDocumentSchema = jsonObject(
  v.strictObject({
    // Kept as sent (a retry's fingerprint is of what was sent); only spaces name no contract.
    contractId: v.pipe(
      v.string(),
      notBlank(v.check((id: string) => id.trim() !== "", "must not be blank")),
      maxCodePoints(128),
      printable(),
    ),
    title: v.optional(v.nullable(v.pipe(v.string(), maxCodePoints(200), printable()))),
  }),
);

const PageQuerySchema = v.object({
  after: v.optional(integerText(0, Number.MAX_SAFE_INTEGER), "0"),
  limit: pageLimit,
});

/** A path that cannot name a document (0, -1, 1.5, 007, beyond 2^53 - 1) names none: 404. */
const DocNumberSchema = integerText(1, Number.MAX_SAFE_INTEGER);
const noSuchDocument = () => notFound("No such document.");

/** A number as answered: below 2^53, so a JSON number holds it exactly (the path's bound). */
const DocNumberValue = v.pipe(v.number(), v.integer(), v.minValue(1), atMost(Number.MAX_SAFE_INTEGER));

const DocumentSchema = v.strictObject({
  id: v.string(),
  tenantId: v.string(),
  docNumber: DocNumberValue,
  contractId: v.string(),
  title: v.nullable(v.string()),
  createdAt: timestamp,
});

export const schemas = {
  Document: DocumentSchema,
  DocumentPage: v.strictObject({
    items: v.array(DocumentSchema),
    next: v.nullable(DocNumberValue),
  }),
};

// The path names the list of documents, which always exists (GET /v1/documents) and has no ETag.
const conditionalCreate = unversionedPreconditions(
  '"*": holds (the list of documents exists). A list of ETags never matches (it has none): 412, nothing created.',
  '"*": never holds (the list exists): 412, nothing created. A list of ETags always holds: as without.',
);

export const documentRoutes = ({ settings }: Pick<AppDeps, "settings">) => [
  route({
    method: "POST",
    path: "/v1/documents",
    access: "token",
    summary: "Create a document with the tenant's next number.",
    headers: { ...conditionalCreate, [IDEMPOTENCY_KEY_HEADER]: idempotencyKeyHeader },
    body: json(NewDocumentSchema),
    responses: {
      201: {
        description: "Created (or replayed).",
        body: schemas.Document,
        headers: { location, [IDEMPOTENT_REPLAYED_HEADER]: replayedHeader },
      },
    },
    problems: { 400: ["malformed_request"], 412: ["precondition_failed"], 422: ["idempotency_key_reused"] },
    handler: async (c, input) => {
      // Before the key and the body: a refused request stores nothing, so its retry is refused too.
      if (evaluatePreconditions(readPreconditions(c.req.raw.headers), {}) !== "ok") {
        throw preconditionFailed(
          'The list of documents exists and has no ETag: If-Match holds only as "*", If-None-Match only as a list of ETags. Nothing was created.',
        );
      }
      const key = honouredIdempotencyKey(c);
      const body = await input.body();
      const title = body.title ?? null;
      const idempotency = await idempotencyOf(key, [body.contractId, title], settings.idempotencyKeyTtlSeconds);
      const { tenantId, userId: subject } = c.get("principal");
      const result = await createDocument(c.get("sql"), {
        tenantId,
        subject,
        contractId: body.contractId,
        title,
        idempotency,
      });
      if (result.outcome === "key_reused") throw keyReused();
      return created(c, result.document, result.outcome === "replayed");
    },
  }),
  route({
    method: "GET",
    path: "/v1/documents",
    access: "token",
    summary: "The tenant's documents, in number order.",
    query: PageQuerySchema,
    headers: unversionedRead,
    responses: { 200: { description: "One page.", body: schemas.DocumentPage }, 304: notModified },
    problems: conditionalReadProblems,
    // The list always exists: its conditions are judged before it is read.
    handler: async (c, { query }) =>
      unversionedReadAnswer(c, readPreconditions(c.req.raw.headers)) ??
      c.json(await listDocuments(c.get("sql"), c.get("principal").tenantId, query.after, query.limit)),
  }),
  route({
    method: "GET",
    path: "/v1/documents/:docNumber",
    access: "token",
    summary: "One document by number.",
    params: { docNumber: { description: "The document's number.", schema: DocNumberSchema } },
    refusePath: noSuchDocument,
    headers: unversionedRead,
    responses: { 200: { description: "The document.", body: schemas.Document }, 304: notModified },
    problems: { ...conditionalReadProblems, 404: ["not_found"] },
    handler: async (c, { params }) => {
      const preconditions = readPreconditions(c.req.raw.headers);
      const document = await findDocument(c.get("sql"), c.get("principal").tenantId, params.docNumber);
      if (!document) throw noSuchDocument();
      return unversionedReadAnswer(c, preconditions) ?? c.json(document);
    },
  }),
];

function created(c: Context<AppEnv>, document: Document, replayed: boolean): Response {
  return c.json(document, 201, { location: `/v1/documents/${document.docNumber}`, ...replayHeaders(replayed) });
}
