// How many requests a caller (a token's subject within its tenant) and a tenant may make per
// window, reads and writes apart.
import { RATE_LIMIT_WINDOW_SECONDS, type RateLimitPolicy } from "../ports/rate-limit.ts";
import { parseGroup, type RawSettings, settingsGroup, wholeNumber, withDefault } from "../settings/schema.ts";

/**
 * Requests per minute. A person or a script doing honest work stays far below a caller's (100
 * reads or 20 writes a second, sustained for a minute); a tenant has room for many such callers.
 */
export const DEFAULT_RATE_LIMITS = {
  callerReads: 6_000,
  callerWrites: 1_200,
  tenantReads: 60_000,
  tenantWrites: 12_000,
};

export type RateLimitName = keyof typeof DEFAULT_RATE_LIMITS;

/** The name each quota has in the RateLimit-Policy field. */
export const RATE_LIMIT_POLICY_NAMES: Record<RateLimitName, string> = {
  callerReads: "caller-reads",
  callerWrites: "caller-writes",
  tenantReads: "tenant-reads",
  tenantWrites: "tenant-writes",
};

export type RateLimits = Record<RateLimitName, RateLimitPolicy>;

// Fastly's rate counters answer counts as 32-bit unsigned integers.
const MAX_LIMIT = 2 ** 32 - 1;

const requestsPerWindow = (name: RateLimitName) =>
  withDefault(
    wholeNumber(1, MAX_LIMIT, `a whole number of requests per ${RATE_LIMIT_WINDOW_SECONDS} seconds`),
    String(DEFAULT_RATE_LIMITS[name]),
  );

const policy = (name: RateLimitName, limit: number): RateLimitPolicy => ({
  name: RATE_LIMIT_POLICY_NAMES[name],
  limit,
  windowSeconds: RATE_LIMIT_WINDOW_SECONDS,
});

export const RATE_LIMIT_SETTINGS = settingsGroup(
  {
    RATE_LIMIT_CALLER_READS: requestsPerWindow("callerReads"),
    RATE_LIMIT_CALLER_WRITES: requestsPerWindow("callerWrites"),
    RATE_LIMIT_TENANT_READS: requestsPerWindow("tenantReads"),
    RATE_LIMIT_TENANT_WRITES: requestsPerWindow("tenantWrites"),
  },
  (values): { rateLimits: RateLimits } => ({
    rateLimits: {
      callerReads: policy("callerReads", values.RATE_LIMIT_CALLER_READS),
      callerWrites: policy("callerWrites", values.RATE_LIMIT_CALLER_WRITES),
      tenantReads: policy("tenantReads", values.RATE_LIMIT_TENANT_READS),
      tenantWrites: policy("tenantWrites", values.RATE_LIMIT_TENANT_WRITES),
    },
  }),
);

/** The four quotas of `raw`; an unusable one throws a SettingsError naming it. */
export const parseRateLimits = (raw: RawSettings): RateLimits => parseGroup(RATE_LIMIT_SETTINGS, raw).rateLimits;
