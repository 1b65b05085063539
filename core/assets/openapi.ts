// The asset routes' operations and what they answer.
import * as v from "valibot";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from "../documents/idempotency.ts";
import {
  type HeaderSpec,
  idempotencyKey,
  json,
  location,
  type OperationSpec,
  type Operations,
  type ResponseSpec,
  replayed,
  written,
} from "../openapi/operations.ts";
import { timestamp } from "../openapi/schemas.ts";
import { ASSET_ID_PATTERN, AssetFieldsSchema, AssetIdSchema, AssetPatchSchema } from "./model.ts";

export const schemas = {
  Asset: v.strictObject({
    id: v.pipe(v.string(), v.regex(ASSET_ID_PATTERN)),
    name: v.string(),
    material: v.string(),
    status: v.picklist(["draft", "approved"]),
    updatedAt: timestamp,
  }),
  ImportResults: v.strictObject({
    results: v.array(
      v.strictObject({
        line: v.pipe(v.number(), v.integer(), v.minValue(1)),
        id: v.nullable(v.string()),
        outcome: v.picklist(["updated", "conflict", "not_found", "locked", "invalid"]),
        /** updated: the new opaque-tag. */
        etag: v.optional(v.string()),
        /** invalid: what is wrong with the row. */
        errors: v.optional(v.array(v.strictObject({ field: v.string(), message: v.string() }))),
      }),
    ),
  }),
};

type Response = ResponseSpec<keyof typeof schemas>;

const etag: HeaderSpec = {
  description: "The asset's strong ETag.",
  schema: v.pipe(v.string(), v.regex(/^"[\x21\x23-\x7E]+"$/)),
  required: true,
};
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

const assetPath = { id: { description: "The asset's id.", schema: AssetIdSchema } };
const asset = (description: string): Response => ({ description, body: "Asset", headers: { etag } });
const assetCreated: Response = { description: "Created.", body: "Asset", headers: { etag, location } };

export const operations: Operations<keyof typeof schemas> = {
  "POST /v1/assets/import": {
    summary: "Conditional bulk update from CSV (`id,name,material,source_etag`).",
    body: { mediaTypes: ["text/csv"], schema: v.string(), description: "RFC 4180 CSV with a header row." },
    responses: { 200: { description: "One result per row.", body: "ImportResults" } },
    problems: { 413: ["payload_too_large"], 422: ["validation_failed"] },
  },
  "POST /v1/assets": {
    summary: "Create an asset.",
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
    path: assetPath,
    headers: { "if-match": { ...ifMatch, required: true } },
    responses: { 200: asset("Approved.") },
    problems: conditionalWriteProblems,
  },
  "DELETE /v1/assets/:id": {
    summary: "Delete, If-Match required.",
    path: assetPath,
    headers: { "if-match": { ...ifMatch, required: true } },
    responses: { 204: written("Deleted.") },
    problems: conditionalWriteProblems,
  },
};
