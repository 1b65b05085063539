// Rate limits per caller and per tenant, reads and writes apart: the caller's quota is counted
// first and the tenant's only when the caller is within its own, so a caller refused for its own
// excess spends none of its tenant's. Every answer of a limited operation carries the quotas
// (RateLimit-Policy) and what is left of them (RateLimit), as the IETF httpapi rate-limit
// headers draft writes them; over a quota the request is answered 429 before any handler runs,
// so nothing is written.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../deps.ts";
import type { RateLimitCount, RateLimiter, RateLimitPolicy } from "../ports/rate-limit.ts";
import { ProblemError } from "./problem.ts";
import type { RateLimits } from "./rate-limit-settings.ts";

const READS = new Set(["GET", "HEAD"]);

interface Counted {
  policy: RateLimitPolicy;
  count: RateLimitCount;
}

/** Needs the principal: registered after the token check. */
export function rateLimits(limiter: RateLimiter, limits: () => RateLimits): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { tenantId, userId } = c.get("principal");
    const reads = READS.has(c.req.method);
    const quotas = limits();
    const [caller, tenant] = reads
      ? [quotas.callerReads, quotas.tenantReads]
      : [quotas.callerWrites, quotas.tenantWrites];
    const counted: Counted[] = [];
    for (const [policy, key] of [
      [caller, callerKey(tenantId, userId)],
      [tenant, tenantKey(tenantId)],
    ] as const) {
      const count = await limiter.count(policy, key);
      counted.push({ policy, count });
      if (!count.allowed) {
        const who = policy === caller ? "this caller" : "this tenant";
        throw new ProblemError(
          429,
          "rate_limited",
          `Too many ${reads ? "reads" : "writes"} for ${who}: at most ${policy.limit} per ${policy.windowSeconds} seconds. Nothing was done; retry after the time Retry-After gives.`,
          {},
          { ...rateLimitFields([caller, tenant], counted), "retry-after": String(Math.max(1, count.resetSeconds)) },
        );
      }
    }
    await next();
    for (const [name, value] of Object.entries(rateLimitFields([caller, tenant], counted))) c.header(name, value);
  };
}

/** Subject and tenant each encoded, so no pair of them can spell another's key. */
const callerKey = (tenantId: string, userId: string) => `${encodeURIComponent(tenantId)}/${encodeURIComponent(userId)}`;
const tenantKey = (tenantId: string) => encodeURIComponent(tenantId);

/**
 * `RateLimit-Policy: "caller-reads";q=6000;w=60, "tenant-reads";q=60000;w=60` and
 * `RateLimit: "caller-reads";r=5999;t=42, …` (Structured Fields lists of strings with parameters).
 * A quota not counted (the caller's was exhausted first) is announced, not reported.
 */
export function rateLimitFields(policies: readonly RateLimitPolicy[], counted: readonly Counted[]) {
  return {
    "ratelimit-policy": policies.map((p) => `"${p.name}";q=${p.limit};w=${p.windowSeconds}`).join(", "),
    ratelimit: counted
      .map(({ policy, count }) => `"${policy.name}";r=${Math.max(0, count.remaining)};t=${count.resetSeconds}`)
      .join(", "),
  };
}
