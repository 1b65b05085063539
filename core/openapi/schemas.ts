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
});

export const OpenApiDocumentSchema = v.looseObject({ openapi: v.literal("3.1.0"), paths: v.looseObject({}) });
