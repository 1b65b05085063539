// What the API answers, as valibot schemas: the OpenAPI document's response bodies. Request bodies,
// queries and path segments use the very schemas the routes validate with.
import * as v from "valibot";
import { ASSET_ID_PATTERN } from "../assets/model.ts";
import { problemCodes } from "../http/problem.ts";

const timestamp = v.pipe(v.string(), v.isoTimestamp());
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

const ProblemSchema = v.object({
  type: v.string(),
  title: v.string(),
  status: v.pipe(v.number(), v.integer(), v.minValue(400), v.maxValue(599)),
  code: v.picklist(problemCodes),
  detail: v.optional(v.string()),
  /** validation_failed: one entry per failing field. */
  errors: v.optional(v.array(v.strictObject({ field: v.string(), message: v.string() }))),
});

const HealthSchema = v.strictObject({ status: v.literal("ok"), runtime: v.string() });
const ReadySchema = v.strictObject({ status: v.literal("ready"), runtime: v.string() });

const LinkSchema = v.strictObject({
  provider: v.string(),
  externalAccountId: v.string(),
  userId: v.string(),
  displayName: v.nullable(v.string()),
  linkedAt: timestamp,
});

const LinkPageSchema = v.strictObject({ items: v.array(LinkSchema), next: v.nullable(v.string()) });

const ResyncCountsSchema = v.strictObject({
  written: count,
  removed: count,
  unchanged: count,
  failed: count,
  next: v.nullable(v.string()),
});

const LinkSyncReportSchema = v.strictObject({ removed: count, caughtUp: v.boolean() });

const AssetSchema = v.strictObject({
  id: v.pipe(v.string(), v.regex(ASSET_ID_PATTERN)),
  name: v.string(),
  material: v.string(),
  status: v.picklist(["draft", "approved"]),
  updatedAt: timestamp,
});

const ImportResultsSchema = v.strictObject({
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
});

const DocumentSchema = v.strictObject({
  id: v.string(),
  tenantId: v.string(),
  docNumber: v.pipe(v.number(), v.integer(), v.minValue(1)),
  contractId: v.string(),
  title: v.nullable(v.string()),
  createdAt: timestamp,
});

const DocumentPageSchema = v.strictObject({
  items: v.array(DocumentSchema),
  next: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

const OpenApiDocumentSchema = v.looseObject({ openapi: v.literal("3.1.0"), paths: v.looseObject({}) });

/** The named schemas of `components.schemas`, referred to by name from the operations. */
export const namedSchemas = {
  Problem: ProblemSchema,
  Health: HealthSchema,
  Ready: ReadySchema,
  Link: LinkSchema,
  LinkPage: LinkPageSchema,
  ResyncCounts: ResyncCountsSchema,
  LinkSyncReport: LinkSyncReportSchema,
  Asset: AssetSchema,
  ImportResults: ImportResultsSchema,
  Document: DocumentSchema,
  DocumentPage: DocumentPageSchema,
  OpenApiDocument: OpenApiDocumentSchema,
};

export type SchemaName = keyof typeof namedSchemas;
