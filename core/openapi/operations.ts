// What a route says of itself for the OpenAPI document: the schemas it reads and answers, its
// statuses, headers and problem codes. Each route's declaration (core/route.ts) carries one,
// with the headers and helpers below that several routes share.
import * as v from "valibot";
import type { ProblemCode } from "../http/problem.ts";

export interface HeaderSpec {
  description: string;
  schema?: v.GenericSchema;
  required?: boolean;
}

export interface ResponseSpec {
  description: string;
  /** A schema its capability names (`Capability.schemas`); none: the response has no body. */
  body?: v.GenericSchema;
  headers?: Record<string, HeaderSpec>;
}

export interface BodySpec<Schema extends v.GenericSchema = v.GenericSchema> {
  mediaTypes: string[];
  schema: Schema;
  /** An empty body is read as `{}`. */
  optional?: boolean;
  description?: string;
}

/** The problem codes each error status can carry. */
export type Problems = Partial<Record<number, ProblemCode[]>>;

/** A query: the parameters it reads, as text in and typed out. */
export type QuerySchema = v.ObjectSchema<v.ObjectEntries, undefined>;

/** A path's parameters, by name: each read from its segment, percent-decoded, with its schema. */
export type PathParams = Readonly<Record<string, { readonly description: string; readonly schema: v.GenericSchema }>>;

export interface OperationSpec<
  Query extends QuerySchema | undefined,
  Body extends v.GenericSchema | undefined,
  Params extends PathParams | undefined = PathParams | undefined,
> {
  summary: string;
  /** Validated before the handler runs, after the query (core/mount.ts; what a failure answers is the route's call). */
  params?: Params;
  /** Validated before the handler runs: 422 `validation_failed` otherwise. */
  query?: Query;
  headers?: Record<string, HeaderSpec>;
  body?: BodySpec<NonNullable<Body>>;
  responses: Record<number, ResponseSpec>;
  /** The problem codes each error status of this operation can carry (beyond the shared ones). */
  problems: Problems;
}

export const location: HeaderSpec = { description: "Where the new resource is.", schema: v.string(), required: true };
/** A write that answers no body. */
export const written = (description: string): ResponseSpec => ({ description });

/** A JSON request body read with this schema. */
export const json = <Schema extends v.GenericSchema>(
  schema: Schema,
  extra: Omit<BodySpec, "mediaTypes" | "schema"> = {},
): BodySpec<Schema> => ({ mediaTypes: ["application/json"], schema, ...extra });
