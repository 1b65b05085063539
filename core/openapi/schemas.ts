// What the API answers, as valibot schemas: the OpenAPI document's response bodies. The ones every
// capability shares live here; each capability names its own (core/<capability>/openapi.ts).
// Request bodies, queries and path segments use the very schemas the routes validate with.
import * as v from "valibot";
import { problemCodes } from "../http/problem.ts";

export const timestamp = v.pipe(v.string(), v.isoTimestamp());

/** Every error's body (RFC 9457). */
export const ProblemSchema = v.object({
  type: v.string(),
  title: v.string(),
  status: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)),
  code: v.picklist(problemCodes),
  detail: v.optional(v.string()),
  /** validation_failed: one entry per failing field. */
  errors: v.optional(v.array(v.strictObject({ field: v.string(), message: v.string() }))),
  // The members some problems carry besides (docs/API.md), named so that a client may read them.
  /** rate_limited: the quotas spent (core/http/rate-limit.ts, refused-tokens.ts). */
  "violated-policies": v.optional(v.array(v.string())),
  /** misconfigured: the setting at fault, never its value. */
  setting: v.optional(v.string()),
  /** /readyz's database_unavailable and database_schema_behind: the runtime, as /healthz names it. */
  runtime: v.optional(v.string()),
  /** An import's malformed_request: the line of the CSV that cannot be parsed. */
  line: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** An import's payload_too_large: the most rows an import holds. */
  maxRows: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

export const OpenApiDocumentSchema = v.looseObject({ openapi: v.literal("3.1.0"), paths: v.looseObject({}) });
