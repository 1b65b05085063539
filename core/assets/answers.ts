// What the asset routes answer, and the headers they read and answer, for their declarations (routes.ts).
import * as v from "valibot";
import { ETAG_LIST_PATTERN } from "../http/etag.ts";
import { etagListOrEmpty } from "../http/preconditions.ts";
import { type HeaderSpec, location, type Problems, type ResponseSpec } from "../openapi/operations.ts";
import { timestamp } from "../openapi/schemas.ts";
import { ASSET_ID_PATTERN } from "./model.ts";

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

export const etag: HeaderSpec = {
  description: "The asset's strong ETag.",
  schema: v.pipe(v.string(), v.regex(/^"[\x21\x23-\x7E]+"$/)),
  required: true,
};
/** What a conditional write (PUT, PATCH, approve, DELETE) can refuse with. */
export const conditionalWriteProblems = {
  400: ["malformed_request"],
  404: ["not_found"],
  409: ["asset_locked"],
  412: ["precondition_failed"],
  428: ["precondition_required"],
} satisfies Problems;

const IF_MATCH = 'The ETag(s) the asset must have (strong comparison), or "*".';
export const ifMatch: HeaderSpec = { description: `${IF_MATCH} Empty: as if absent.`, schema: etagListOrEmpty };
/** GET: 304 when the asset has one of them. */
export const ifNoneMatch: HeaderSpec = {
  description: 'ETag(s) the asset must not have (weak comparison), or "*": 304 when it has one. Empty: as if absent.',
  schema: etagListOrEmpty,
};
/** PUT: only `*` is a precondition (preconditions.ts' putMode); a list of ETags could overwrite blindly. */
export const putIfNoneMatch: HeaderSpec = {
  description:
    '"*": create with this id (412 if it exists). A list of ETags is no precondition for PUT, which it could let overwrite blindly: 428, as without one. Empty: as if absent.',
  schema: etagListOrEmpty,
};
/** POST /v1/assets and the import, which name no asset (preconditions.ts, refuseIfMatch). */
export const onNoAsset = {
  "if-match": {
    description: "Never holds here, where no asset is named: 412, nothing done. Empty: as if absent.",
    schema: etagListOrEmpty,
  },
  "if-none-match": { description: "Always holds here: changes nothing. Empty: as if absent.", schema: etagListOrEmpty },
} satisfies Record<string, HeaderSpec>;
/** PATCH, DELETE and approve: without it, or with it empty, 428. */
export const requiredIfMatch: HeaderSpec = {
  description: IF_MATCH,
  schema: v.pipe(v.string(), v.regex(ETAG_LIST_PATTERN)),
  required: true,
};

export const assetResponse = (description: string): ResponseSpec => ({
  description,
  body: schemas.Asset,
  headers: { etag },
});
export const createdResponse: ResponseSpec = {
  description: "Created.",
  body: schemas.Asset,
  headers: { etag, location },
};
