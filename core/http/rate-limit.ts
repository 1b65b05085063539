// Rate limits per caller and per tenant, reads and writes apart: the caller's quota is counted
// first and the tenant's only when the caller is within its own, so a caller refused for its own
// excess spends none of its tenant's. Every answer of a limited operation carries the quotas
// (RateLimit-Policy) and what is left of them (RateLimit), as the IETF httpapi rate-limit
// headers draft writes them; over a quota the request is answered 429 before any handler runs,
// so nothing is written.
import type { Context, Next } from "hono";
import type { AppEnv } from "../deps.ts";
import type { RateLimitCount, RateLimiter, RateLimitPolicy } from "../ports/rate-limit.ts";
import { ProblemError } from "./problem.ts";
import type { RateLimits } from "./rate-limit-settings.ts";

/** Run by the token check's middleware once the principal is set (core/app.ts). */
export function rateLimits(limiter: RateLimiter, limits: () => RateLimits) {
  return async (c: Context<AppEnv>, next: Next): Promise<void> => {
    const { tenantId, userId } = c.get("principal");
    const method = c.req.method;
    const reads = method === "GET" || method === "HEAD";
    const quotas = limits();
    const caller = reads ? quotas.callerReads : quotas.callerWrites;
    const tenant = reads ? quotas.tenantReads : quotas.tenantWrites;
    // Both counts are one part of the request (one Server-Timing part, one span): a span for
    // each would cost every limited request one more.
    const [callerCount, tenantCount] = await c.get("timed")("limit", async () => {
      // A tenant id has no "/" (core/tokens/auth.ts), so the first one ends it: no pair of tenant
      // and subject spells another's key.
      const callerCount = await limiter.count(caller, `${tenantId}/${userId}`);
      if (!callerCount.allowed) throw refusal("this caller", reads, [caller, tenant], [callerCount]);
      const tenantCount = await limiter.count(tenant, tenantId);
      if (!tenantCount.allowed) throw refusal("this tenant", reads, [caller, tenant], [callerCount, tenantCount]);
      return [callerCount, tenantCount] as const;
    });
    await next();
    // On the response itself: Hono's c.header() would copy a finished response to change it.
    const { headers } = c.res;
    headers.set("ratelimit-policy", policyField(caller, tenant));
    headers.set("ratelimit", `${remainingItem(caller, callerCount)}, ${remainingItem(tenant, tenantCount)}`);
  };
}

type Quotas = [caller: RateLimitPolicy, tenant: RateLimitPolicy];

function refusal(who: string, reads: boolean, quotas: Quotas, counts: RateLimitCount[]): ProblemError {
  const policy = quotas[counts.length - 1]!;
  const count = counts[counts.length - 1]!;
  return new ProblemError(
    429,
    "rate_limited",
    `Too many ${reads ? "reads" : "writes"} for ${who}: at most ${policy.limit} per ${policy.windowSeconds} seconds. ` +
      "Nothing was done; retry after the time Retry-After gives.",
    // The draft's quota-exceeded problem names the quotas spent so.
    { "violated-policies": [policy.name] },
    {
      "ratelimit-policy": policyField(...quotas),
      // A quota not counted (the caller's was spent first) is announced, not reported.
      ratelimit: counts.map((counted, i) => remainingItem(quotas[i]!, counted)).join(", "),
      "retry-after": String(Math.max(1, count.resetSeconds)),
    },
  );
}

// Written once per pair of quotas: settings do not change while a deployment serves.
const policyFields = new WeakMap<RateLimitPolicy, string>();

/** `"caller-reads";q=6000;w=60, "tenant-reads";q=60000;w=60` (a Structured Fields list). */
function policyField(caller: RateLimitPolicy, tenant: RateLimitPolicy): string {
  let field = policyFields.get(caller);
  if (field === undefined) {
    field = [caller, tenant].map(policyItem).join(", ");
    policyFields.set(caller, field);
  }
  return field;
}

/** `"caller-reads";q=6000;w=60`: one quota, as RateLimit-Policy lists it. */
export const policyItem = (policy: RateLimitPolicy) => `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`;

/** `"caller-reads";r=5999;t=42`: what is left, and the seconds until the quota is whole again. */
export const remainingItem = (policy: RateLimitPolicy, count: RateLimitCount) =>
  `"${policy.name}";r=${Math.max(0, count.remaining)};t=${count.resetSeconds}`;
