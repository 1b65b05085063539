// How a valibot schema reads in the OpenAPI document: JSON Schema 2020-12 by @valibot/to-json-schema,
// with what the project's own checks mean. The same rules convert every schema, whether hono-openapi
// resolves it (queries, request bodies) or the document names it (components, path and header parameters).
import { type ConversionConfig, type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

export const conversion: ConversionConfig = {
  target: "draft-2020-12",
  // A pipeline read from text (`integerText`: a query's `limit`, a path's document number) is
  // published as what it reads as: the schema after its last transformation, an integer.
  typeMode: "output",
  // Checks JSON Schema cannot say (a lone surrogate, a blank after trimming) stay in the prose.
  errorMode: "ignore",
  // core/http/validation.ts's maxCodePoints counts what JSON Schema's maxLength counts: code points.
  // A check of the project's own that says what it means in JSON Schema (publishedAs) adds that.
  overrideAction: ({ valibotAction, jsonSchema }) => {
    if ("maxCodePoints" in valibotAction) return { ...jsonSchema, maxLength: valibotAction.maxCodePoints as number };
    if ("jsonSchema" in valibotAction) return merged(jsonSchema, valibotAction.jsonSchema as JsonSchema);
    return undefined;
  },
  // A default is given as the text a query would carry; an integer parameter publishes the integer it reads as.
  overrideSchema: ({ jsonSchema }) =>
    jsonSchema.type === "integer" && typeof jsonSchema.default === "string"
      ? { ...jsonSchema, default: Number(jsonSchema.default) }
      : undefined,
};

/** `extra`'s keywords over `schema`; a second pattern joins the first under allOf, as one schema holds one. */
function merged(schema: JsonSchema, extra: JsonSchema): JsonSchema {
  if (extra.pattern === undefined || schema.pattern === undefined) return { ...schema, ...extra };
  const { pattern, ...rest } = extra;
  return { ...schema, ...rest, allOf: [...(schema.allOf ?? []), { pattern }] };
}

/** The JSON Schema of `schema`, without `$schema` (the document names its dialect once). */
export function jsonSchemaOf(schema: v.GenericSchema): JsonSchema {
  const { $schema: _, ...rest } = toJsonSchema(schema, conversion);
  return rest;
}
