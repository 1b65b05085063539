// What each route of the route table means: the schemas it reads and answers, its statuses, headers
// and problem codes. Keyed by the route table's own "METHOD path"; a route without an entry here (or
// an entry without a route) fails the document's test, so the two cannot drift apart.
import * as v from "valibot";
import { AssetFieldsSchema, AssetIdSchema, AssetPatchSchema } from "../assets/model.ts";
import { IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from "../documents/idempotency.ts";
import { NewDocumentSchema, PageQuerySchema } from "../documents/routes.ts";
import type { ProblemCode } from "../http/problem.ts";
import { LinkBodySchema, LookupQuerySchema, TargetSchema, UserLinksQuerySchema } from "../links/link.ts";
import { ResyncQuerySchema } from "../links/resync.ts";
import { LINK_SOURCE_HEADER } from "../links/routes.ts";
import type { SchemaName } from "./schemas.ts";

export interface HeaderSpec {
  description: string;
  schema?: v.GenericSchema;
  required?: boolean;
}

interface ResponseSpec {
  description: string;
  /** A schema of `components.schemas`; none: the response has no body. */
  body?: SchemaName;
  headers?: Record<string, HeaderSpec>;
}

export interface OperationSpec {
  summary: string;
  tag: "operations" | "links" | "assets" | "documents";
  /** Answered without a token. */
  public?: boolean;
  path?: Record<string, { description: string; schema: v.GenericSchema }>;
  query?: v.ObjectSchema<v.ObjectEntries, undefined>;
  headers?: Record<string, HeaderSpec>;
  body?: { mediaTypes: string[]; schema: v.GenericSchema; optional?: boolean; description?: string };
  responses: Record<number, ResponseSpec>;
  /** The problem codes each error status of this operation can carry (beyond the shared ones). */
  problems: Partial<Record<number, ProblemCode[]>>;
}

const etag: HeaderSpec = {
  description: "The asset's strong ETag.",
  schema: v.pipe(v.string(), v.regex(/^"[\x21\x23-\x7E]+"$/)),
  required: true,
};
const location: HeaderSpec = { description: "Where the new resource is.", schema: v.string(), required: true };
/** What a write conditioned on If-Match can refuse with. */
const conditionalWriteProblems = {
  400: ["malformed_request"],
  404: ["not_found"],
  409: ["asset_locked"],
  412: ["precondition_failed"],
  428: ["precondition_required"],
} satisfies OperationSpec["problems"];

const ifMatch: HeaderSpec = { description: 'The ETag(s) the asset must have (strong comparison), or "*".' };
const ifNoneMatch: HeaderSpec = { description: "ETag(s) the asset must not have; `*` on PUT creates." };

const targetPath = {
  provider: {
    description: "Case-insensitive provider name (`GitHub` = `github`).",
    schema: TargetSchema.entries.provider,
  },
  externalAccountId: {
    description: "The account's id at the provider, trimmed; percent-encode `/` and other reserved characters.",
    schema: TargetSchema.entries.externalAccountId,
  },
};
// A malformed percent-escape is a 400; a target that is not a valid name a 422.
const targetProblems = { 400: ["malformed_request"], 422: ["validation_failed"] } satisfies OperationSpec["problems"];
const assetPath = { id: { description: "The asset's id.", schema: AssetIdSchema } };
const asset = (description: string): ResponseSpec => ({ description, body: "Asset", headers: { etag } });
const assetCreated: ResponseSpec = { description: "Created.", body: "Asset", headers: { etag, location } };
const idempotencyKey: HeaderSpec = {
  description: "Names this request: a retry with the same body answers the first result, creating nothing.",
  schema: v.pipe(v.string(), v.regex(IDEMPOTENCY_KEY)),
};
const replayed: HeaderSpec = { description: "`true` when this answers an earlier request with the same key." };
const written = (description: string): ResponseSpec => ({ description });

const json = (
  schema: v.GenericSchema,
  extra: Omit<NonNullable<OperationSpec["body"]>, "mediaTypes" | "schema"> = {},
) => ({
  mediaTypes: ["application/json"],
  schema,
  ...extra,
});

export const operations: Record<string, OperationSpec> = {
  "GET /healthz": {
    summary: "Liveness: the service answers.",
    tag: "operations",
    public: true,
    responses: { 200: { description: "Alive.", body: "Health" } },
    problems: {},
  },
  "GET /readyz": {
    summary: "Readiness: Postgres answers.",
    tag: "operations",
    public: true,
    responses: {
      200: { description: "Ready.", body: "Ready" },
      503: {
        description: "Postgres cannot be reached.",
        headers: { "retry-after": { description: "Seconds.", required: true } },
      },
    },
    problems: { 503: ["database_unavailable"] },
  },
  "GET /openapi.json": {
    summary: "This document.",
    tag: "operations",
    public: true,
    responses: { 200: { description: "The OpenAPI 3.1 document of this API.", body: "OpenApiDocument" } },
    problems: {},
  },

  "PUT /v1/links/:provider/:externalAccountId": {
    summary: "Link an external account to the caller.",
    tag: "links",
    path: targetPath,
    body: json(LinkBodySchema, { optional: true }),
    responses: {
      200: { description: "Already linked to the caller (idempotent).", body: "Link" },
      201: { description: "Linked.", body: "Link", headers: { location } },
    },
    problems: {
      ...targetProblems,
      409: ["external_account_already_linked", "provider_already_linked", "link_limit_reached"],
      422: ["validation_failed", "provider_not_allowed"],
    },
  },
  "GET /v1/links/:provider/:externalAccountId": {
    summary: "Who owns an external account (a user token sees only its own links).",
    tag: "links",
    path: targetPath,
    query: LookupQuerySchema,
    responses: {
      200: {
        description: "The link.",
        body: "Link",
        headers: { [LINK_SOURCE_HEADER]: { description: "`kv` or `db`: where it was read.", required: true } },
      },
    },
    problems: { ...targetProblems, 404: ["not_found"] },
  },
  "DELETE /v1/links/:provider/:externalAccountId": {
    summary: "Unlink (owner only).",
    tag: "links",
    path: targetPath,
    responses: { 204: written("Unlinked.") },
    problems: { ...targetProblems, 404: ["not_found"] },
  },
  "GET /v1/me/links": {
    summary: "The caller's links, in provider order, a page at a time.",
    tag: "links",
    query: UserLinksQuerySchema,
    responses: { 200: { description: "One page; `next` is the `after` of the following one.", body: "LinkPage" } },
    problems: { 422: ["validation_failed"] },
  },
  "POST /v1/admin/links/resync": {
    summary:
      "Make the KV cache agree with Postgres (admin only), a bounded chunk per call: repeat with `after=next` until `next` is null.",
    tag: "links",
    query: ResyncQuerySchema,
    responses: { 200: { description: "What this call did, and where the next one goes on.", body: "ResyncCounts" } },
    problems: { 403: ["forbidden"], 422: ["validation_failed"] },
  },
  "POST /v1/admin/links/sync": {
    summary: "Drain the link change feed into this deployment's KV cache now (admin only), for an outside scheduler.",
    tag: "links",
    responses: {
      200: {
        description: "Cache entries of the caller's tenant removed, and whether the feed was drained to its end.",
        body: "LinkSyncReport",
      },
    },
    problems: { 403: ["forbidden"] },
  },

  "POST /v1/assets/import": {
    summary: "Conditional bulk update from CSV (`id,name,material,source_etag`).",
    tag: "assets",
    body: { mediaTypes: ["text/csv"], schema: v.string(), description: "RFC 4180 CSV with a header row." },
    responses: { 200: { description: "One result per row.", body: "ImportResults" } },
    problems: { 413: ["payload_too_large"], 422: ["validation_failed"] },
  },
  "POST /v1/assets": {
    summary: "Create an asset.",
    tag: "assets",
    headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey },
    body: json(AssetFieldsSchema),
    responses: {
      201: {
        ...assetCreated,
        description: "Created (or replayed).",
        headers: { etag, location, [IDEMPOTENT_REPLAYED_HEADER]: replayed },
      },
    },
    problems: { 422: ["idempotency_key_reused"] },
  },
  "GET /v1/assets/:id": {
    summary: "Read an asset (conditional with If-None-Match / If-Match).",
    tag: "assets",
    path: assetPath,
    headers: { "if-match": ifMatch, "if-none-match": ifNoneMatch },
    responses: {
      200: asset("The asset."),
      304: { description: "Not modified.", headers: { etag } },
    },
    problems: { 400: ["malformed_request"], 404: ["not_found"], 412: ["precondition_failed"] },
  },
  "PUT /v1/assets/:id": {
    summary: "Create with this id (If-None-Match: *) or replace (If-Match).",
    tag: "assets",
    path: assetPath,
    headers: { "if-match": ifMatch, "if-none-match": ifNoneMatch },
    body: json(AssetFieldsSchema),
    responses: { 200: asset("Replaced."), 201: assetCreated },
    problems: {
      404: ["not_found"],
      409: ["asset_locked"],
      412: ["precondition_failed"],
      428: ["precondition_required"],
    },
  },
  "PATCH /v1/assets/:id": {
    summary: "Change name and/or material (JSON merge patch), If-Match required.",
    tag: "assets",
    path: assetPath,
    headers: { "if-match": { ...ifMatch, required: true } },
    body: { mediaTypes: ["application/json", "application/merge-patch+json"], schema: AssetPatchSchema },
    responses: { 200: asset("Changed.") },
    problems: {
      404: ["not_found"],
      409: ["asset_locked"],
      412: ["precondition_failed"],
      428: ["precondition_required"],
    },
  },
  "POST /v1/assets/:id/approve": {
    summary: "Approve (locks the asset), If-Match required.",
    tag: "assets",
    path: assetPath,
    headers: { "if-match": { ...ifMatch, required: true } },
    responses: { 200: asset("Approved.") },
    problems: conditionalWriteProblems,
  },
  "DELETE /v1/assets/:id": {
    summary: "Delete, If-Match required.",
    tag: "assets",
    path: assetPath,
    headers: { "if-match": { ...ifMatch, required: true } },
    responses: { 204: written("Deleted.") },
    problems: conditionalWriteProblems,
  },

  "POST /v1/documents": {
    summary: "Create a document with the tenant's next number.",
    tag: "documents",
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
    tag: "documents",
    query: PageQuerySchema,
    responses: { 200: { description: "One page.", body: "DocumentPage" } },
    problems: { 422: ["validation_failed"] },
  },
  "GET /v1/documents/:docNumber": {
    summary: "One document by number.",
    tag: "documents",
    path: {
      docNumber: { description: "The document's number.", schema: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,15}$/)) },
    },
    responses: { 200: { description: "The document.", body: "Document" } },
    problems: { 404: ["not_found"] },
  },
};
