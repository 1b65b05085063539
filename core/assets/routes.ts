// The assets routes of the HTTP contract: compare-and-set with strong ETags and If-Match.
// Every write is one SQL statement (see repository.ts); every request that can be refused from
// its headers, path or body alone is refused before the database is asked anything.
import type { Context } from "hono";
import * as v from "valibot";
import type { AppDeps, AppEnv } from "../deps.ts";
import { formatEtag } from "../http/etag.ts";
import { readPreconditions } from "../http/preconditions.ts";
import { notFound, ProblemError } from "../http/problem.ts";
import { validationFailed } from "../http/validation.ts";
import {
  honouredIdempotencyKey,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyHeader,
  idempotencyOf,
  keyReused,
  replayedHeader,
  replayHeaders,
} from "../idempotency/key.ts";
import { json, location, type Problems, written } from "../openapi/operations.ts";
import { route } from "../route.ts";
import {
  assetResponse,
  conditionalWriteProblems,
  createdResponse,
  etag,
  ifMatch,
  ifNoneMatch,
  onNoAsset,
  putIfNoneMatch,
  requiredIfMatch,
  schemas,
} from "./answers.ts";
import { createAssetOnce } from "./create-once.ts";
import { parseImport, requireHeaderRow } from "./csv-import.ts";
import { type Asset, AssetFieldsSchema, AssetIdSchema, AssetPatchSchema, representation } from "./model.ts";
import { evaluateRead, type MatchCondition, putMode, refuseIfMatch, requireIfMatch } from "./preconditions.ts";
import {
  deleteAsset,
  findAsset,
  importRows,
  insertAsset,
  updateAsset,
  type WriteOutcome,
  type WriteResult,
} from "./repository.ts";

type Ctx = Context<AppEnv>;

const tenantOf = (c: Ctx) => c.get("principal").tenantId;

const noSuchAsset = () => notFound("No such asset.");

/** PATCH, approve and DELETE: the If-Match the write requires of the asset. */
const conditionOf = (c: Ctx): MatchCondition => requireIfMatch(readPreconditions(c.req.raw.headers));

const assetLocation = (id: string) => `/v1/assets/${encodeURIComponent(id)}`;

function answerAsset(c: Ctx, asset: Asset, status: 200 | 201 = 200, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra, etag: formatEtag(asset.etag) };
  if (status === 201) headers.location = assetLocation(asset.id);
  return c.json(representation(asset), status, headers);
}

// A proxy that compresses answers (nginx's gzip, for one) weakens the ETags it hands on; a client
// sending them back would otherwise be told to fetch and retry, and get the same 412 every round.
const onlyWeakTags = (condition: MatchCondition) => !condition.any && condition.tags.length === 0;

// PUT with If-None-Match: * on an id taken: which request would do what the caller may have meant.
const alreadyExists = () =>
  new ProblemError(
    412,
    "precondition_failed",
    "An asset with this id already exists, and If-None-Match: * creates only one that does not; nothing was changed. " +
      "To replace it, send If-Match with its ETag.",
  );

const conflict = (condition: MatchCondition) =>
  new ProblemError(
    412,
    "precondition_failed",
    onlyWeakTags(condition)
      ? "If-Match names only weak ETags (W/), which never match a write; nothing was changed. " +
          "A proxy that compresses answers may have weakened the asset's ETag: its tag without W/ is the strong one."
      : "The asset is not at the version If-Match names; nothing was changed. " +
          "Fetch it again, merge your change into it, and retry with its new ETag.",
  );

const refusals: Record<WriteOutcome, (condition: MatchCondition) => ProblemError> = {
  not_found: noSuchAsset,
  conflict,
  locked: () => new ProblemError(409, "asset_locked", "The asset is approved and can no longer be changed."),
};

function answerWrite(c: Ctx, result: WriteResult, condition: MatchCondition) {
  if (result.outcome === "updated") return answerAsset(c, result.asset);
  throw refusals[result.outcome](condition);
}

/** The path of an existing asset: an id that could never have been created names none (404). */
const existingAsset = {
  params: { id: { description: "The asset's id.", schema: AssetIdSchema } },
  refusePath: noSuchAsset,
};
const conditionalRead = { "if-match": ifMatch, "if-none-match": ifNoneMatch };
const conditionalPut = { "if-match": ifMatch, "if-none-match": putIfNoneMatch };
const ifMatchRequired = { "if-match": requiredIfMatch };
// `/v1/assets/import` is the CSV import's path, which only POST serves: any other method there is 405.
const importPath = { 405: ["method_not_allowed"] } satisfies Problems;

export const assetRoutes = ({ settings }: Pick<AppDeps, "settings">) => [
  // Before the `:id` routes, which would take `import` for an asset id.
  route({
    method: "POST",
    path: "/v1/assets/import",
    access: "token",
    summary: "Conditional bulk update from CSV (`id,name,material,source_etag`).",
    headers: onNoAsset,
    body: {
      mediaTypes: ["text/csv"],
      schema: v.string(),
      description: "RFC 4180 CSV in UTF-8 with a header row; `;` between fields when the first line says so.",
    },
    responses: { 200: { description: "One result per row.", body: schemas.ImportResults } },
    problems: { 412: ["precondition_failed"], 413: ["payload_too_large"], 422: ["validation_failed"] },
    handler: async (c, input) => {
      refuseIfMatch(readPreconditions(c.req.raw.headers));
      requireHeaderRow(c.req.raw);
      const { rows } = parseImport(await input.body());
      const valid = rows.flatMap((row) => ("valid" in row ? [row.valid] : []));
      const outcomes = await importRows(c.get("sql"), tenantOf(c), valid);
      const results = rows.map((row) =>
        "valid" in row
          ? { line: row.valid.line, id: row.valid.id, ...outcomes.get(row.valid.line)! }
          : { line: row.invalid.line, id: row.invalid.id, outcome: "invalid" as const, errors: row.invalid.errors },
      );
      return c.json({ results });
    },
  }),
  route({
    method: "POST",
    path: "/v1/assets",
    access: "token",
    summary: "Create an asset.",
    headers: { ...onNoAsset, [IDEMPOTENCY_KEY_HEADER]: idempotencyKeyHeader },
    body: json(AssetFieldsSchema),
    responses: {
      201: {
        ...createdResponse,
        description: "Created (or replayed).",
        headers: { etag, location, [IDEMPOTENT_REPLAYED_HEADER]: replayedHeader },
      },
    },
    problems: { 412: ["precondition_failed"], 422: ["idempotency_key_reused"] },
    handler: async (c, input) => {
      refuseIfMatch(readPreconditions(c.req.raw.headers));
      const key = honouredIdempotencyKey(c);
      const fields = await input.body();
      const idempotency = await idempotencyOf(key, [fields.name, fields.material], settings.idempotencyKeyTtlSeconds);
      if (!idempotency) {
        const created = await insertAsset(c.get("sql"), tenantOf(c), crypto.randomUUID(), fields);
        if (!created) throw new Error("a freshly generated asset id already exists");
        return answerAsset(c, created, 201);
      }
      const caller = { tenantId: tenantOf(c), subject: c.get("principal").userId };
      const result = await createAssetOnce(c.get("sql"), caller, crypto.randomUUID(), fields, idempotency);
      if (result.outcome === "key_reused") throw keyReused();
      return answerAsset(c, result.asset, 201, replayHeaders(result.outcome === "replayed"));
    },
  }),
  route({
    method: "GET",
    path: "/v1/assets/:id",
    access: "token",
    summary: "Read an asset (conditional with If-None-Match / If-Match).",
    ...existingAsset,
    headers: conditionalRead,
    responses: {
      200: assetResponse("The asset."),
      304: { description: "Not modified.", headers: { etag } },
    },
    problems: { 400: ["malformed_request"], 404: ["not_found"], 412: ["precondition_failed"], ...importPath },
    handler: async (c, { params: { id } }) => {
      const preconditions = readPreconditions(c.req.raw.headers);
      const found = await findAsset(c.get("sql"), tenantOf(c), id);
      if (!found) throw noSuchAsset();
      const outcome = evaluateRead(preconditions, found.etag);
      if (outcome === "precondition_failed") {
        throw new ProblemError(412, "precondition_failed", "The asset is not at a version If-Match names.");
      }
      if (outcome === "not_modified") return c.body(null, 304, { etag: formatEtag(found.etag) });
      return answerAsset(c, found);
    },
  }),
  route({
    method: "PUT",
    path: "/v1/assets/:id",
    access: "token",
    summary: "Create with this id (If-None-Match: *) or replace (If-Match).",
    ...existingAsset,
    // The precondition first (400, 428); then an id that cannot be created is refused (422) and
    // one that cannot exist names nothing to replace (404).
    refusePath: (c, issues) =>
      putMode(readPreconditions(c.req.raw.headers)).kind === "create" ? validationFailed(issues) : noSuchAsset(),
    headers: conditionalPut,
    body: json(AssetFieldsSchema),
    responses: { 200: assetResponse("Replaced."), 201: createdResponse },
    problems: { ...conditionalWriteProblems, ...importPath },
    handler: async (c, { params: { id }, body }) => {
      const mode = putMode(readPreconditions(c.req.raw.headers));
      if (mode.kind === "create") {
        const created = await insertAsset(c.get("sql"), tenantOf(c), id, await body());
        if (!created) throw alreadyExists();
        return answerAsset(c, created, 201);
      }
      const fields = await body();
      return answerWrite(c, await updateAsset(c.get("sql"), tenantOf(c), id, mode.condition, fields), mode.condition);
    },
  }),
  route({
    method: "PATCH",
    path: "/v1/assets/:id",
    access: "token",
    summary: "Change name and/or material (JSON merge patch), If-Match required.",
    ...existingAsset,
    headers: ifMatchRequired,
    body: { mediaTypes: ["application/json", "application/merge-patch+json"], schema: AssetPatchSchema },
    responses: { 200: assetResponse("Changed.") },
    problems: { ...conditionalWriteProblems, ...importPath },
    handler: async (c, { params: { id }, body }) => {
      const condition = conditionOf(c);
      return answerWrite(c, await updateAsset(c.get("sql"), tenantOf(c), id, condition, await body()), condition);
    },
  }),
  route({
    method: "POST",
    path: "/v1/assets/:id/approve",
    access: "token",
    summary: "Approve (locks the asset), If-Match required.",
    ...existingAsset,
    headers: ifMatchRequired,
    responses: { 200: assetResponse("Approved.") },
    problems: conditionalWriteProblems,
    handler: async (c, { params: { id } }) => {
      const condition = conditionOf(c);
      return answerWrite(c, await updateAsset(c.get("sql"), tenantOf(c), id, condition, { approve: true }), condition);
    },
  }),
  route({
    method: "DELETE",
    path: "/v1/assets/:id",
    access: "token",
    summary: "Delete, If-Match required.",
    ...existingAsset,
    headers: ifMatchRequired,
    responses: { 204: written("Deleted.") },
    problems: { ...conditionalWriteProblems, ...importPath },
    handler: async (c, { params: { id } }) => {
      const condition = conditionOf(c);
      const outcome = await deleteAsset(c.get("sql"), tenantOf(c), id, condition);
      if (outcome !== "deleted") throw refusals[outcome](condition);
      return c.body(null, 204);
    },
  }),
];
