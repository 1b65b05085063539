import type { Context } from "hono";
import { Hono } from "hono/tiny";
import * as v from "valibot";
import type { AppDeps, AppEnv } from "../deps.ts";
import { allowOnly } from "../http/allow-only.ts";
import { readJson, validate } from "../http/body.ts";
import { notFound, ProblemError } from "../problem.ts";
import { maxCodePoints, printable } from "../validation.ts";
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  parseIdempotencyKey,
  requestFingerprint,
} from "./idempotency.ts";
import { createDocument, type Document, findDocument, listDocuments } from "./repository.ts";

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

export const NewDocumentSchema = v.strictObject({
  contractId: v.pipe(v.string(), v.minLength(1), maxCodePoints(128), printable("contractId")),
  title: v.optional(v.nullable(v.pipe(v.string(), maxCodePoints(200), printable("title")))),
});

// Query values are text: canonical decimal integers only, within what a JSON number holds exactly.
const integerText = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^(0|[1-9][0-9]{0,15})$/, "must be a decimal integer"),
    v.transform(Number),
    v.minValue(min),
    v.maxValue(max),
  );

export const PageQuerySchema = v.object({
  after: v.optional(integerText(0, Number.MAX_SAFE_INTEGER), "0"),
  limit: v.optional(integerText(1, MAX_PAGE_SIZE), String(DEFAULT_PAGE_SIZE)),
});

const DOC_NUMBER = /^[1-9][0-9]{0,15}$/;

export function documentRoutes({ sql, settings }: AppDeps) {
  const app = new Hono<AppEnv>()
    .post("/documents", async (c) => {
      const key = parseIdempotencyKey(c.req.header(IDEMPOTENCY_KEY_HEADER));
      const body = await readJson(c.req.raw, NewDocumentSchema);
      const title = body.title ?? null;
      const idempotency =
        key === undefined
          ? undefined
          : {
              key,
              fingerprint: await requestFingerprint([body.contractId, title]),
              // Read per request: on Fastly the settings are bound on an instance's first request.
              ttlSeconds: settings.idempotencyKeyTtlSeconds,
            };
      const { tenantId } = c.get("principal");
      const result = await createDocument(sql, { tenantId, contractId: body.contractId, title, idempotency });
      if (result.outcome === "key_reused") {
        throw new ProblemError(
          422,
          "idempotency_key_reused",
          "This Idempotency-Key was already used with a different request body.",
        );
      }
      return created(c, result.document, result.outcome === "replayed");
    })
    .get("/documents", async (c) => {
      const { after, limit } = validate(PageQuerySchema, { after: c.req.query("after"), limit: c.req.query("limit") });
      return c.json(await listDocuments(sql, c.get("principal").tenantId, after, limit));
    })
    .get("/documents/:docNumber", async (c) => {
      const docNumber = parseDocNumber(c.req.param("docNumber"));
      const document = docNumber && (await findDocument(sql, c.get("principal").tenantId, docNumber));
      if (!document) throw notFound("No such document.");
      return c.json(document);
    });
  allowOnly(app, "/documents", ["GET", "HEAD", "POST"]);
  allowOnly(app, "/documents/:docNumber", ["GET", "HEAD"]);
  return app;
}

function created(c: Context<AppEnv>, document: Document, replayed: boolean): Response {
  const headers: Record<string, string> = { location: `/v1/documents/${document.docNumber}` };
  if (replayed) headers[IDEMPOTENT_REPLAYED_HEADER] = "true";
  return c.json(document, 201, headers);
}

/** A path that cannot name a document (0, -1, 1.5, 007, beyond 2^53 - 1) is simply not found. */
function parseDocNumber(text: string): number | undefined {
  if (!DOC_NUMBER.test(text)) return undefined;
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : undefined;
}
