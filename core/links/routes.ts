import type { Context } from "hono";
import * as v from "valibot";
import type { AppEnv, RouteDeps } from "../deps.ts";
import {
  conditionalReadProblems,
  notModified,
  readPreconditions,
  unversionedRead,
  unversionedReadAnswer,
} from "../http/preconditions.ts";
import { notFound } from "../http/problem.ts";
import { waitUntilOf } from "../http/wait-until.ts";
import { type Logger, silentLogger } from "../log.ts";
import { json, location, type Problems, written } from "../openapi/operations.ts";
import { timestamp } from "../openapi/schemas.ts";
import { DEFAULT_KV_TIMEOUT_MS } from "../ports/kv.ts";
import { isDatabaseFailure } from "../ports/sql.ts";
import { route } from "../route.ts";
import { SettingsError } from "../settings/error.ts";
import { createLinkCache, type LinkCache } from "./cache.ts";
import { linkSyncJob } from "./jobs.ts";
import {
  canSee,
  type Link,
  LinkBodySchema,
  LookupQuerySchema,
  linkLocation,
  TargetSchema,
  UserLinksQuerySchema,
} from "./link.ts";
import { deletePreconditions, holdOfExistingLink, putMode, putPreconditions } from "./preconditions.ts";
import { alreadyHeld, linkConflict, replaceRefusals, requireAllowedProvider, stillLinked } from "./refusals.ts";
import { replaceLink } from "./replace.ts";
import { findLink, linkAccount, listUserLinks, unlinkAccount } from "./repository.ts";
import { DEFAULT_RESYNC_BATCH_SIZE, ResyncQuerySchema, resyncLinkCache } from "./resync.ts";
import { type WriteBackDeps, writeBackConfirmed } from "./write-back.ts";

export const LINK_SOURCE_HEADER = "x-link-source";

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

const LinkSchema = v.strictObject({
  provider: v.string(),
  externalAccountId: v.string(),
  userId: v.string(),
  displayName: v.nullable(v.string()),
  linkedAt: timestamp,
});

export const schemas = {
  Link: LinkSchema,
  LinkPage: v.strictObject({ items: v.array(LinkSchema), next: v.nullable(v.string()) }),
  ResyncCounts: v.strictObject({
    written: count,
    removed: count,
    unchanged: count,
    failed: count,
    next: v.nullable(v.string()),
  }),
  LinkSyncReport: v.strictObject({ removed: count, caughtUp: v.boolean() }),
};

/** The path of one link, its parameters normalized: what the handlers get is the canonical target. */
const target = {
  path: "/v1/links/:provider/:externalAccountId",
  params: {
    provider: {
      description: "Case-insensitive provider name (`GitHub` = `github`).",
      schema: TargetSchema.entries.provider,
    },
    externalAccountId: {
      description: "The account's id at the provider, trimmed; percent-encode `/` and other reserved characters.",
      schema: TargetSchema.entries.externalAccountId,
    },
  },
  access: "token",
} as const;
// A malformed percent-escape is a 400; a target that is not a valid name a 422.
const targetProblems = { 400: ["malformed_request"], 422: ["validation_failed"] } satisfies Problems;

/** The link routes of docs/API-links.md. Postgres decides every outcome; KV only serves reads. */
export function linkRoutes(deps: RouteDeps) {
  const limits = deps.settings.linkLimits;
  const { background } = deps;
  // Looked up on every call, not captured: a test that fakes the clock moves it for us too.
  const now = () => Date.now();
  const loggerFor = (c: Context<AppEnv>) => withRequestId(deps.logger ?? silentLogger, c.get("requestId"));
  const cacheFor = (c: Context<AppEnv>, kv = c.get("kv")) =>
    createLinkCache(kv, {
      tenantId: c.get("principal").tenantId,
      ttlSeconds: deps.settings.linkCacheTtlSeconds,
      timeoutMs: DEFAULT_KV_TIMEOUT_MS,
      logger: loggerFor(c),
      now,
    });
  // Where the platform has no waitUntil (Node, Deno), work after the answer goes on by itself.
  const writeBackDeps = (c: Context<AppEnv>, cache: LinkCache): WriteBackDeps => ({
    sql: c.get("sql"),
    cache,
    logger: loggerFor(c),
    keepAlive: (work) => waitUntilOf(c)?.(work),
  });

  return [
    route({
      ...target,
      method: "PUT",
      summary: "Link an external account to the caller.",
      headers: putPreconditions,
      body: json(LinkBodySchema, { optional: true }),
      responses: {
        200: { description: "Already linked to the caller (idempotent), or changed (If-Match).", body: LinkSchema },
        201: { description: "Linked.", body: LinkSchema, headers: { location } },
      },
      problems: {
        ...targetProblems,
        404: ["not_found"],
        409: ["external_account_already_linked", "provider_already_linked", "link_limit_reached"],
        412: ["precondition_failed"],
        422: ["validation_failed", "provider_not_allowed"],
      },
      handler: async (c, { params: target, ...input }) => {
        const mode = putMode(readPreconditions(c.req.raw.headers));
        requireAllowedProvider(limits, target.provider);
        const body = await input.body();
        const readAt = now();
        const principal = c.get("principal");
        const link = {
          ...target,
          tenantId: principal.tenantId,
          userId: principal.userId,
          displayName: body.displayName ?? null,
          // If-None-Match: * changes nothing of a link the caller holds (it answers 412).
          replaceDisplayName: body.displayName !== undefined && mode.kind !== "create",
        };
        if (mode.kind === "replace") {
          const replaced = await replaceLink(c.get("sql"), link, mode.holds);
          if (replaced.outcome !== "replaced") throw replaceRefusals[replaced.outcome]();
          await cacheFor(c).write(replaced.link, readAt);
          return c.json(replaced.link, 200);
        }
        const result = await linkAccount(c.get("sql"), { ...link, maxLinksPerUser: limits.maxPerUser });
        if (result.outcome === "conflict") throw linkConflict(result.code, limits);
        if (result.outcome === "existing" && mode.kind === "create") throw alreadyHeld();
        // After the commit, and only as a copy: a failed write leaves a miss, never a wrong answer.
        await cacheFor(c).write(result.link, readAt);
        if (result.outcome === "existing") return c.json(result.link, 200);
        return c.json(result.link, 201, { location: linkLocation(result.link) });
      },
    }),
    route({
      ...target,
      method: "GET",
      summary: "Who owns an external account (a user token sees only its own links).",
      query: LookupQuerySchema,
      headers: unversionedRead,
      responses: {
        200: {
          description: "The link.",
          body: LinkSchema,
          headers: { [LINK_SOURCE_HEADER]: { description: "`kv` or `db`: where it was read.", required: true } },
        },
        304: notModified,
      },
      problems: { ...targetProblems, ...conditionalReadProblems, 404: ["not_found"] },
      handler: async (c, { query: { consistency }, params: target }) => {
        const preconditions = readPreconditions(c.req.raw.headers);
        const found = (link: Link, source: "kv" | "db") =>
          unversionedReadAnswer(c, preconditions) ?? c.json(link, 200, { [LINK_SOURCE_HEADER]: source });
        const principal = c.get("principal");
        const cache = cacheFor(c);
        if (consistency === "eventual") {
          const cached = await cache.read(target);
          // Someone else's cached link goes to Postgres too: a user's 404 is never decided by KV,
          // and is sent without X-Link-Source, so it cannot tell a cached link from an absent one.
          if (cached && canSee(principal, cached)) return found(cached, "kv");
        }
        const readAt = now();
        const link = await findLink(c.get("sql"), principal.tenantId, target);
        // A refused lookup (404, or 412 here) writes nothing, not even a cache copy.
        if (!link || !canSee(principal, link)) throw notFound("No such link.");
        const answer = found(link, "db");
        // A strong read leaves the cache alone: it answers one client, repair is resync's job.
        if (consistency === "eventual") await writeBackConfirmed(writeBackDeps(c, cache), link, readAt);
        return answer;
      },
    }),
    route({
      ...target,
      method: "DELETE",
      summary: "Unlink (owner only).",
      headers: deletePreconditions,
      responses: { 204: written("Unlinked.") },
      problems: { ...targetProblems, 404: ["not_found"], 412: ["precondition_failed"] },
      handler: async (c, { params: target }) => {
        const { tenantId, userId } = c.get("principal");
        if (!holdOfExistingLink(readPreconditions(c.req.raw.headers))) {
          // Nothing is removed: a read tells the caller's link (412) from none (404).
          const link = await findLink(c.get("sql"), tenantId, target);
          throw link?.userId === userId ? stillLinked() : notFound("No such link.");
        }
        if (!(await unlinkAccount(c.get("sql"), tenantId, target, userId))) throw notFound("No such link.");
        await cacheFor(c).remove(target);
        return c.body(null, 204);
      },
    }),
    route({
      method: "GET",
      path: "/v1/me/links",
      access: "token",
      summary: "The caller's links, in provider order, a page at a time.",
      query: UserLinksQuerySchema,
      headers: unversionedRead,
      responses: {
        200: { description: "One page; `next` is the `after` of the following one.", body: schemas.LinkPage },
        304: notModified,
      },
      problems: conditionalReadProblems,
      // The list always exists: its conditions are judged before it is read.
      handler: async (c, { query }) => {
        const { tenantId, userId } = c.get("principal");
        return (
          unversionedReadAnswer(c, readPreconditions(c.req.raw.headers)) ??
          c.json(await listUserLinks(c.get("sql"), tenantId, userId, query))
        );
      },
    }),
    route({
      method: "POST",
      path: "/v1/admin/links/resync",
      access: "admin",
      summary:
        "Make the KV cache agree with Postgres (admin only), a bounded chunk per call: repeat with `after=next` until `next` is null.",
      query: ResyncQuerySchema,
      responses: {
        200: { description: "What this call did, and where the next one goes on.", body: schemas.ResyncCounts },
      },
      problems: {},
      handler: async (c, { query: { after } }) => {
        const budget = background.invocationBudget();
        const cache = cacheFor(c, budget.meterKv(c.get("kv")));
        return c.json(
          await resyncLinkCache(c.get("sql"), cache, {
            batchSize: DEFAULT_RESYNC_BATCH_SIZE,
            now,
            budget,
            from: after,
          }),
        );
      },
    }),
    // One sync of the change feed, for an outside scheduler. The sync covers the deployment;
    // the answer speaks of the caller's tenant only.
    route({
      method: "POST",
      path: "/v1/admin/links/sync",
      access: "admin",
      summary: "Sync the link change feed into this deployment's KV cache now (admin only), for an outside scheduler.",
      responses: {
        200: {
          description: "Cache entries of the caller's tenant removed, and whether the feed was synced to its end.",
          body: schemas.LinkSyncReport,
        },
      },
      problems: {},
      handler: async (c) => {
        const report = await background.runNow(linkSyncJob);
        // A database that failed the sync answers as on every route (503, 504; a refused login 500
        // misconfigured): no success for a scheduler. A KV store that failed it is, as for a
        // resync, no server error: caughtUp false says the sync is not done.
        const { failure } = report;
        if (isDatabaseFailure(failure) || failure instanceof SettingsError) throw failure;
        const removed = report.removedByTenant[c.get("principal").tenantId] ?? 0;
        return c.json({ removed, caughtUp: report.caughtUp });
      },
    }),
  ];
}

function withRequestId(logger: Logger, requestId: string): Logger {
  return { log: (level, event, fields) => logger.log(level, event, { requestId, ...fields }) };
}
