// The assets routes of the HTTP contract: compare-and-set with strong ETags and If-Match.
// Every write is one SQL statement (see repository.ts); every request that can be refused from
// its headers, path or body alone is refused before the database is asked anything.
import type { Context } from "hono";
import { Hono } from "hono";
import * as v from "valibot";
import type { AppDeps, AppEnv } from "../deps.ts";
import {
  IDEMPOTENCY_KEY_HEADER,
  idempotencyOf,
  keyReused,
  parseIdempotencyKey,
  replayHeaders,
} from "../documents/idempotency.ts";
import { readBodyText, readJson, requireMediaType, validate } from "../http/body.ts";
import { methodNotAllowedProblem, notFound, ProblemError } from "../http/problem.ts";
import { createAssetOnce } from "./create-once.ts";
import { parseImport } from "./csv-import.ts";
import { formatEtag } from "./etag.ts";
import { type Asset, AssetFieldsSchema, AssetIdSchema, AssetPatchSchema, isAssetId, representation } from "./model.ts";
import { evaluateRead, putMode, readPreconditions, requireIfMatch } from "./preconditions.ts";
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

const MERGE_PATCH = "application/merge-patch+json";
const NewIdSchema = v.object({ id: AssetIdSchema });

const tenantOf = (c: Ctx) => c.get("principal").tenantId;

const noSuchAsset = () => notFound("No such asset.");

/** The path's id; one that could never have been created cannot exist: 404. */
function existingId(c: Ctx): string {
  const id = c.req.param("id")!;
  if (!isAssetId(id)) throw noSuchAsset();
  return id;
}

const location = (id: string) => `/v1/assets/${encodeURIComponent(id)}`;

function answerAsset(c: Ctx, asset: Asset, status: 200 | 201 = 200, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...extra, etag: formatEtag(asset.etag) };
  if (status === 201) headers.location = location(asset.id);
  return c.json(representation(asset), status, headers);
}

const refusals: Record<WriteOutcome, () => ProblemError> = {
  not_found: noSuchAsset,
  conflict: () =>
    new ProblemError(
      412,
      "precondition_failed",
      "The asset is not at the version If-Match names; nothing was changed. " +
        "Fetch it again, merge your change into it, and retry with its new ETag.",
    ),
  locked: () => new ProblemError(409, "asset_locked", "The asset is approved and can no longer be changed."),
};

function answerWrite(c: Ctx, result: WriteResult) {
  if (result.outcome === "updated") return answerAsset(c, result.asset);
  throw refusals[result.outcome]();
}

export function assetRoutes({ settings }: Pick<AppDeps, "settings">) {
  const app = new Hono<AppEnv>();

  app.post("/assets/import", async (c) => {
    requireMediaType(c.req.raw, ["text/csv"]);
    const { rows } = parseImport(await readBodyText(c.req.raw));
    const valid = rows.flatMap((row) => ("valid" in row ? [row.valid] : []));
    const outcomes = await importRows(c.var.sql, tenantOf(c), valid);
    const results = rows.map((row) =>
      "valid" in row
        ? { line: row.valid.line, id: row.valid.id, ...outcomes.get(row.valid.line)! }
        : { line: row.invalid.line, id: row.invalid.id, outcome: "invalid" as const, errors: row.invalid.errors },
    );
    return c.json({ results });
  });
  // Before the `:id` routes, which would take `import` for an asset id (and whose methods the
  // Allow computed from the route table would list for this path too).
  app.all("/assets/import", () => {
    throw methodNotAllowedProblem(["POST"]);
  });

  app.post("/assets", async (c) => {
    const key = parseIdempotencyKey(c.req.header(IDEMPOTENCY_KEY_HEADER));
    const fields = await readJson(c.req.raw, AssetFieldsSchema);
    const idempotency = await idempotencyOf(key, [fields.name, fields.material], settings.idempotencyKeyTtlSeconds);
    if (!idempotency) {
      const asset = await insertAsset(c.var.sql, tenantOf(c), crypto.randomUUID(), fields);
      if (!asset) throw new Error("a freshly generated asset id already exists");
      return answerAsset(c, asset, 201);
    }
    const caller = { tenantId: tenantOf(c), subject: c.get("principal").userId };
    const result = await createAssetOnce(c.var.sql, caller, crypto.randomUUID(), fields, idempotency);
    if (result.outcome === "key_reused") throw keyReused();
    return answerAsset(c, result.asset, 201, replayHeaders(result.outcome === "replayed"));
  });

  app.get("/assets/:id", async (c) => {
    const id = existingId(c);
    const preconditions = readPreconditions(c.req.raw.headers);
    const asset = await findAsset(c.var.sql, tenantOf(c), id);
    if (!asset) throw noSuchAsset();
    const outcome = evaluateRead(preconditions, asset.etag);
    if (outcome === "precondition_failed") throw refusals.conflict();
    if (outcome === "not_modified") return c.body(null, 304, { etag: formatEtag(asset.etag) });
    return answerAsset(c, asset);
  });

  app.put("/assets/:id", async (c) => {
    const mode = putMode(readPreconditions(c.req.raw.headers));
    if (mode.kind === "create") {
      const { id } = validate(NewIdSchema, { id: c.req.param("id") });
      const fields = await readJson(c.req.raw, AssetFieldsSchema);
      const asset = await insertAsset(c.var.sql, tenantOf(c), id, fields);
      if (!asset) throw new ProblemError(412, "precondition_failed", "An asset with this id already exists.");
      return answerAsset(c, asset, 201);
    }
    const id = existingId(c);
    const fields = await readJson(c.req.raw, AssetFieldsSchema);
    return answerWrite(c, await updateAsset(c.var.sql, tenantOf(c), id, mode.condition, fields));
  });

  app.patch("/assets/:id", async (c) => {
    const id = existingId(c);
    const condition = requireIfMatch(readPreconditions(c.req.raw.headers));
    const patch = await readJson(c.req.raw, AssetPatchSchema, { mediaTypes: [MERGE_PATCH] });
    return answerWrite(c, await updateAsset(c.var.sql, tenantOf(c), id, condition, patch));
  });

  app.post("/assets/:id/approve", async (c) => {
    const id = existingId(c);
    const condition = requireIfMatch(readPreconditions(c.req.raw.headers));
    return answerWrite(c, await updateAsset(c.var.sql, tenantOf(c), id, condition, { approve: true }));
  });

  app.delete("/assets/:id", async (c) => {
    const id = existingId(c);
    const condition = requireIfMatch(readPreconditions(c.req.raw.headers));
    const outcome = await deleteAsset(c.var.sql, tenantOf(c), id, condition);
    if (outcome !== "deleted") throw refusals[outcome]();
    return c.body(null, 204);
  });

  return app;
}
