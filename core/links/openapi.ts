// The link routes' operations and what they answer.
import * as v from "valibot";
import { json, location, type OperationSpec, type Operations, written } from "../openapi/operations.ts";
import { timestamp } from "../openapi/schemas.ts";
import { LinkBodySchema, LookupQuerySchema, TargetSchema, UserLinksQuerySchema } from "./link.ts";
import { ResyncQuerySchema } from "./resync.ts";
import { LINK_SOURCE_HEADER } from "./routes.ts";

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

const LinkSchema = v.strictObject({
  provider: v.string(),
  externalAccountId: v.string(),
  userId: v.string(),
  displayName: v.nullable(v.string()),
  linkedAt: timestamp,
});

export const schemas = {
  Link: LinkSchema,
  LinkPage: v.strictObject({ items: v.array(LinkSchema), next: v.nullable(v.string()) }),
  ResyncCounts: v.strictObject({
    written: count,
    removed: count,
    unchanged: count,
    failed: count,
    next: v.nullable(v.string()),
  }),
  LinkSyncReport: v.strictObject({ removed: count, caughtUp: v.boolean() }),
};

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

export const operations: Operations<keyof typeof schemas> = {
  "PUT /v1/links/:provider/:externalAccountId": {
    summary: "Link an external account to the caller.",
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
    path: targetPath,
    responses: { 204: written("Unlinked.") },
    problems: { ...targetProblems, 404: ["not_found"] },
  },
  "GET /v1/me/links": {
    summary: "The caller's links, in provider order, a page at a time.",
    query: UserLinksQuerySchema,
    responses: { 200: { description: "One page; `next` is the `after` of the following one.", body: "LinkPage" } },
    problems: { 422: ["validation_failed"] },
  },
  "POST /v1/admin/links/resync": {
    summary:
      "Make the KV cache agree with Postgres (admin only), a bounded chunk per call: repeat with `after=next` until `next` is null.",
    query: ResyncQuerySchema,
    responses: { 200: { description: "What this call did, and where the next one goes on.", body: "ResyncCounts" } },
    problems: { 403: ["forbidden"], 422: ["validation_failed"] },
  },
  "POST /v1/admin/links/sync": {
    summary: "Drain the link change feed into this deployment's KV cache now (admin only), for an outside scheduler.",
    responses: {
      200: {
        description: "Cache entries of the caller's tenant removed, and whether the feed was drained to its end.",
        body: "LinkSyncReport",
      },
    },
    problems: { 403: ["forbidden"] },
  },
};
