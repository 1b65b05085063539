import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv, RouteDeps } from "../deps.ts";
import { readJson, validate } from "../http/body.ts";
import { notFound, ProblemError } from "../http/problem.ts";
import { type Logger, silentLogger } from "../log.ts";
import { DEFAULT_KV_TIMEOUT_MS } from "../ports/kv.ts";
import { createLinkCache } from "./cache.ts";
import { linkDrainJob } from "./jobs.ts";
import {
  canSee,
  type Link,
  LinkBodySchema,
  LookupQuerySchema,
  linkLocation,
  readTarget,
  UserLinksQuerySchema,
} from "./link.ts";
import type { LinkLimits } from "./link-settings.ts";
import { findLink, type LinkConflictCode, linkAccount, listUserLinks, unlinkAccount } from "./repository.ts";
import { DEFAULT_RESYNC_BATCH_SIZE, ResyncQuerySchema, resyncLinkCache } from "./resync.ts";

export const LINK_SOURCE_HEADER = "x-link-source";

const conflictDetails: Record<LinkConflictCode, string> = {
  external_account_already_linked: "This external account is linked to another user.",
  provider_already_linked: "You already have another account of this provider linked; unlink it first.",
  link_limit_reached: "You already hold as many links as one user may; unlink one first.",
};

/** The link routes of docs/API.md. Postgres decides every outcome; KV only serves reads. */
export function linkRoutes(deps: RouteDeps) {
  const limits = deps.settings.linkLimits;
  const { background } = deps;
  // Looked up on every call, not captured: a test that fakes the clock moves it for us too.
  const now = () => Date.now();
  const cacheFor = (c: Context<AppEnv>, kv = c.var.kv) =>
    createLinkCache(kv, {
      tenantId: c.get("principal").tenantId,
      ttlSeconds: deps.settings.linkCacheTtlSeconds,
      timeoutMs: DEFAULT_KV_TIMEOUT_MS,
      logger: withRequestId(deps.logger ?? silentLogger, c.get("requestId")),
      now,
    });

  const app = new Hono<AppEnv>()
    .put("/links/:provider/:externalAccountId", async (c) => {
      const target = readTarget(c);
      requireAllowedProvider(limits, target.provider);
      const body = await readJson(c.req.raw, LinkBodySchema, { whenEmpty: {} });
      const readAt = now();
      const principal = c.get("principal");
      const result = await linkAccount(c.var.sql, {
        ...target,
        tenantId: principal.tenantId,
        userId: principal.userId,
        displayName: body.displayName ?? null,
        replaceDisplayName: body.displayName !== undefined,
        maxLinksPerUser: limits.maxPerUser,
      });
      if (result.outcome === "conflict") throw new ProblemError(409, result.code, conflictDetails[result.code]);
      // After the commit, and only as a copy: a failed write leaves a miss, never a wrong answer.
      await cacheFor(c).write(result.link, readAt);
      if (result.outcome === "existing") return c.json(result.link, 200);
      return c.json(result.link, 201, { location: linkLocation(result.link) });
    })
    .get("/links/:provider/:externalAccountId", async (c) => {
      const target = readTarget(c);
      const { consistency } = validate(LookupQuerySchema, { consistency: c.req.query("consistency") });
      const principal = c.get("principal");
      const cache = cacheFor(c);
      if (consistency === "eventual") {
        const cached = await cache.read(target);
        // Someone else's cached link goes to Postgres too: a user's 404 is never decided by KV,
        // and is sent without X-Link-Source, so it cannot tell a cached link from an absent one.
        if (cached && canSee(principal, cached)) return found(c, cached, "kv");
      }
      const readAt = now();
      const link = await findLink(c.var.sql, principal.tenantId, target);
      // A refused lookup writes nothing, not even a cache copy.
      if (!link || !canSee(principal, link)) throw notFound("No such link.");
      // A strong read leaves the cache alone: it answers one client, repair is resync's job.
      if (consistency === "eventual") await cache.write(link, readAt);
      return found(c, link, "db");
    })
    .delete("/links/:provider/:externalAccountId", async (c) => {
      const target = readTarget(c);
      const { tenantId, userId } = c.get("principal");
      if (!(await unlinkAccount(c.var.sql, tenantId, target, userId))) throw notFound("No such link.");
      await cacheFor(c).remove(target);
      return c.body(null, 204);
    })
    .get("/me/links", async (c) => {
      const page = validate(UserLinksQuerySchema, { after: c.req.query("after"), limit: c.req.query("limit") });
      const { tenantId, userId } = c.get("principal");
      return c.json(await listUserLinks(c.var.sql, tenantId, userId, page));
    })
    .post("/admin/links/resync", async (c) => {
      requireAdmin(c, "resync");
      const { after } = validate(ResyncQuerySchema, { after: c.req.query("after") });
      const budget = background.invocationBudget();
      const cache = cacheFor(c, budget.meterKv(c.var.kv));
      return c.json(
        await resyncLinkCache(c.var.sql, cache, { batchSize: DEFAULT_RESYNC_BATCH_SIZE, now, budget, from: after }),
      );
    })
    // One drain of the change feed, for an outside scheduler. The drain covers the deployment;
    // the answer speaks of the caller's tenant only.
    .post("/admin/links/sync", async (c) => {
      requireAdmin(c, "sync");
      const report = await background.runNow(linkDrainJob);
      const removed = report.removedByTenant[c.get("principal").tenantId] ?? 0;
      return c.json({ removed, caughtUp: report.caughtUp && !report.failed });
    });
  return app;
}

/** Only new links are judged: links of a provider taken off the list can still be read and unlinked. */
function requireAllowedProvider({ providers }: LinkLimits, provider: string) {
  if (providers && !providers.has(provider)) {
    const accepted = [...providers].join(", ");
    throw new ProblemError(
      422,
      "provider_not_allowed",
      `This service links accounts of these providers only: ${accepted}.`,
    );
  }
}

function requireAdmin(c: Context<AppEnv>, action: string) {
  if (c.get("principal").role !== "admin") {
    throw new ProblemError(403, "forbidden", `Only admin tokens may ${action} the link cache.`);
  }
}

function found(c: Context<AppEnv>, link: Link, source: "kv" | "db"): Response {
  return c.json(link, 200, { [LINK_SOURCE_HEADER]: source });
}

function withRequestId(logger: Logger, requestId: string): Logger {
  return { log: (level, event, fields) => logger.log(level, event, { requestId, ...fields }) };
}
