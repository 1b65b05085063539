import { RATE_LIMIT_POLICY_NAMES, type RateLimitName } from "../../core/http/rate-limit-settings.ts";
import type { RateLimiter } from "../../core/ports/rate-limit.ts";
import { SettingsError } from "../../core/settings/settings.ts";
import { createMemoryRateLimiter } from "./memory.ts";

/** The binding of each quota, declared in wrangler.toml (`[[ratelimits]]`, `name`). */
export const WORKERS_RATE_LIMIT_BINDINGS = {
  callerReads: "RATE_LIMITER_CALLER_READS",
  callerWrites: "RATE_LIMITER_CALLER_WRITES",
  tenantReads: "RATE_LIMITER_TENANT_READS",
  tenantWrites: "RATE_LIMITER_TENANT_WRITES",
  refusedTokens: "RATE_LIMITER_REFUSED_TOKENS",
} as const satisfies Record<RateLimitName, string>;

export type WorkersRateLimitBindings = Partial<
  Record<(typeof WORKERS_RATE_LIMIT_BINDINGS)[RateLimitName], WorkersRateLimit>
>;

/** A Workers Rate Limiting binding (`[[ratelimits]]` in wrangler.toml). */
export interface WorkersRateLimit {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/**
 * The rate-limit port over Workers' Rate Limiting bindings, one per quota.
 * The binding decides, with the limit and period it was declared with in wrangler.toml, counted
 * per Cloudflare location; it tells only whether a request is allowed. What remains is this
 * isolate's own count of the window, an estimate (other isolates count too), and the reset is
 * the end of the clock-aligned window, as the binding counts.
 */
export function createWorkersRateLimiter(env: WorkersRateLimitBindings): RateLimiter {
  const estimate = createMemoryRateLimiter();
  const bindings = new Map(
    (Object.keys(WORKERS_RATE_LIMIT_BINDINGS) as RateLimitName[]).map((name) => {
      const binding = WORKERS_RATE_LIMIT_BINDINGS[name];
      return [RATE_LIMIT_POLICY_NAMES[name], () => env[binding] ?? missing(binding)] as const;
    }),
  );
  const bindingOf = (policyName: string) => (bindings.get(policyName) ?? missing(policyName))();
  return {
    async count(policy, key) {
      const [{ success }, local] = await Promise.all([
        bindingOf(policy.name).limit({ key }),
        estimate.count(policy, key),
      ]);
      return success
        ? { allowed: true, remaining: local.remaining, resetSeconds: local.resetSeconds }
        : { allowed: false, remaining: 0, resetSeconds: local.resetSeconds };
    },
  };
}

function missing(binding: string): never {
  throw new SettingsError(binding, "must be a Rate Limiting binding ([[ratelimits]] in wrangler.toml)");
}
