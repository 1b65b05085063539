// What an operation of the OpenAPI document says: the schemas it reads and answers, its statuses,
// headers and problem codes. Each capability describes its own routes (core/<capability>/openapi.ts)
// with these types and the headers several of them share.
import * as v from "valibot";
import { IDEMPOTENCY_KEY } from "../documents/idempotency.ts";
import type { ProblemCode } from "../http/problem.ts";

export interface HeaderSpec {
  description: string;
  schema?: v.GenericSchema;
  required?: boolean;
}

/** `Body`: the names of `components.schemas` a response may refer to. */
export interface ResponseSpec<Body extends string = string> {
  description: string;
  /** A schema of `components.schemas`; none: the response has no body. */
  body?: Body;
  headers?: Record<string, HeaderSpec>;
}

export interface OperationSpec<Body extends string = string> {
  summary: string;
  path?: Record<string, { description: string; schema: v.GenericSchema }>;
  query?: v.ObjectSchema<v.ObjectEntries, undefined>;
  headers?: Record<string, HeaderSpec>;
  body?: { mediaTypes: string[]; schema: v.GenericSchema; optional?: boolean; description?: string };
  responses: Record<number, ResponseSpec<Body>>;
  /** The problem codes each error status of this operation can carry (beyond the shared ones). */
  problems: Partial<Record<number, ProblemCode[]>>;
}

/**
 * Operations keyed by the route table's own "METHOD path" (`GET /v1/assets/:id`): a route without
 * an entry (or an entry without a route) fails the document's test, so the two cannot drift apart.
 */
export type Operations<Body extends string = string> = Record<string, OperationSpec<Body>>;

export const location: HeaderSpec = { description: "Where the new resource is.", schema: v.string(), required: true };
export const idempotencyKey: HeaderSpec = {
  description: "Names this request: a retry with the same body answers the first result, creating nothing.",
  schema: v.pipe(v.string(), v.regex(IDEMPOTENCY_KEY)),
};
export const replayed: HeaderSpec = { description: "`true` when this answers an earlier request with the same key." };
/** A write that answers no body. */
export const written = (description: string): ResponseSpec<never> => ({ description });

/** A JSON request body read with this schema. */
export const json = (
  schema: v.GenericSchema,
  extra: Omit<NonNullable<OperationSpec["body"]>, "mediaTypes" | "schema"> = {},
) => ({
  mediaTypes: ["application/json"],
  schema,
  ...extra,
});
