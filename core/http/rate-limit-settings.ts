// How many requests a caller (a token's subject within its tenant) and a tenant may make per
// window, reads and writes apart.
import { RATE_LIMIT_WINDOW_SECONDS, type RateLimitPolicy } from "../ports/rate-limit.ts";
import { SettingsError } from "../settings/error.ts";

export const RATE_LIMIT_SETTINGS = {
  callerReads: "RATE_LIMIT_CALLER_READS",
  callerWrites: "RATE_LIMIT_CALLER_WRITES",
  tenantReads: "RATE_LIMIT_TENANT_READS",
  tenantWrites: "RATE_LIMIT_TENANT_WRITES",
} as const;

export type RateLimitName = keyof typeof RATE_LIMIT_SETTINGS;

export const RATE_LIMIT_SETTING_NAMES = [
  RATE_LIMIT_SETTINGS.callerReads,
  RATE_LIMIT_SETTINGS.callerWrites,
  RATE_LIMIT_SETTINGS.tenantReads,
  RATE_LIMIT_SETTINGS.tenantWrites,
] as const;

/**
 * Requests per minute. A person or a script doing honest work stays far below a caller's (100
 * reads or 20 writes a second, sustained for a minute); a tenant has room for many such callers.
 */
export const DEFAULT_RATE_LIMITS: Record<RateLimitName, number> = {
  callerReads: 6_000,
  callerWrites: 1_200,
  tenantReads: 60_000,
  tenantWrites: 12_000,
};

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

export function parseRateLimits(raw: Record<string, string | undefined>): RateLimits {
  const limits = {} as RateLimits;
  for (const [name, setting] of Object.entries(RATE_LIMIT_SETTINGS) as [RateLimitName, string][]) {
    limits[name] = {
      name: RATE_LIMIT_POLICY_NAMES[name],
      limit: parseLimit(setting, raw[setting], DEFAULT_RATE_LIMITS[name]),
      windowSeconds: RATE_LIMIT_WINDOW_SECONDS,
    };
  }
  return limits;
}

function parseLimit(setting: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === "") return fallback;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new SettingsError(
      setting,
      `must be a whole number of requests per ${RATE_LIMIT_WINDOW_SECONDS} seconds, at least 1`,
    );
  }
  return limit;
}
