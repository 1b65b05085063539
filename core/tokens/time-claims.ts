// What time decides of a token whose signature and claims verified: exp, nbf and iat against the
// checking instance's clock, with the leeway. The verifier checks it after jose, and the cache of
// verified tokens (verified-tokens.ts) on every use of a remembered one, so both refuse the same
// tokens at the same instants, also when the clock steps back. To the millisecond: jose reads its
// clock in whole seconds, so a token whose exp has a fraction (RFC 7519 allows one) passed it up
// to a second after exp and the leeway, and a token up to a second older than the maximum age.
import type { JWTPayload } from "jose";
import type { TokenRefusal } from "./refusal.ts";

export interface TimeRules {
  /** AUTH_CLOCK_LEEWAY_SECONDS: the skew allowed each way. */
  leewaySeconds: number;
  /** AUTH_MAX_TOKEN_AGE_SECONDS: the oldest a token may be from its iat (0: any age, iat optional). */
  maxTokenAgeSeconds: number;
}

/** Why `payload` is refused at `atMs` (epoch milliseconds), or undefined when time allows it. */
export function timeRefusal({ exp, nbf, iat }: JWTPayload, atMs: number, rules: TimeRules): TokenRefusal | undefined {
  const { leewaySeconds, maxTokenAgeSeconds: maxAge } = rules;
  const leewayMs = leewaySeconds * 1000;
  if (exp !== undefined && atMs >= exp * 1000 + leewayMs) return "expired";
  if (nbf !== undefined && nbf * 1000 > atMs + leewayMs) return "not yet valid";
  // jose checks iat only against a maximum age: a token issued ahead is refused here in any case.
  if (iat !== undefined && iat * 1000 > atMs + leewayMs) return "not yet valid";
  if (maxAge === 0) return undefined;
  if (iat === undefined) return "missing iat";
  return atMs - iat * 1000 - leewayMs > maxAge * 1000 ? "too old" : undefined;
}
