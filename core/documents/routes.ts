import type { Context } from "hono";
import { Hono } from "hono";
import * as v from "valibot";
import type { AppDeps, AppEnv } from "../deps.ts";
import { readJson, validate } from "../http/body.ts";
import { integerText, pageLimit } from "../http/page.ts";
import { notFound } from "../http/problem.ts";
import { maxCodePoints, printable } from "../http/validation.ts";
import { IDEMPOTENCY_KEY_HEADER, idempotencyOf, keyReused, parseIdempotencyKey, replayHeaders } from "./idempotency.ts";
import { createDocument, type Document, findDocument, listDocuments } from "./repository.ts";

export const NewDocumentSchema = v.strictObject({
  contractId: v.pipe(v.string(), v.minLength(1), maxCodePoints(128), printable("contractId")),
  title: v.optional(v.nullable(v.pipe(v.string(), maxCodePoints(200), printable("title")))),
});

export const PageQuerySchema = v.object({
  after: v.optional(integerText(0, Number.MAX_SAFE_INTEGER), "0"),
  limit: pageLimit,
});

const DOC_NUMBER = /^[1-9][0-9]{0,15}$/;

export function documentRoutes({ settings }: Pick<AppDeps, "settings">) {
  const app = new Hono<AppEnv>()
    .post("/documents", async (c) => {
      const key = parseIdempotencyKey(c.req.header(IDEMPOTENCY_KEY_HEADER));
      const body = await readJson(c.req.raw, NewDocumentSchema);
      const title = body.title ?? null;
      const idempotency = await idempotencyOf(key, [body.contractId, title], settings.idempotencyKeyTtlSeconds);
      const { tenantId, userId: subject } = c.get("principal");
      const result = await createDocument(c.var.sql, {
        tenantId,
        subject,
        contractId: body.contractId,
        title,
        idempotency,
      });
      if (result.outcome === "key_reused") throw keyReused();
      return created(c, result.document, result.outcome === "replayed");
    })
    .get("/documents", async (c) => {
      const { after, limit } = validate(PageQuerySchema, { after: c.req.query("after"), limit: c.req.query("limit") });
      return c.json(await listDocuments(c.var.sql, c.get("principal").tenantId, after, limit));
    })
    .get("/documents/:docNumber", async (c) => {
      const docNumber = parseDocNumber(c.req.param("docNumber"));
      const document = docNumber && (await findDocument(c.var.sql, c.get("principal").tenantId, docNumber));
      if (!document) throw notFound("No such document.");
      return c.json(document);
    });
  return app;
}

function created(c: Context<AppEnv>, document: Document, replayed: boolean): Response {
  return c.json(document, 201, { location: `/v1/documents/${document.docNumber}`, ...replayHeaders(replayed) });
}

/** A path that cannot name a document (0, -1, 1.5, 007, beyond 2^53 - 1) is simply not found. */
function parseDocNumber(text: string): number | undefined {
  if (!DOC_NUMBER.test(text)) return undefined;
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : undefined;
}
