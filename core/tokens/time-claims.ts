// What time decides of a token whose signature and claims verified: exp, nbf and iat against the
// checking instance's clock, with the leeway. The verifier checks it after jose, and the cache of
// verified tokens (verified-tokens.ts) on every use of a remembered one, so both refuse the same
// tokens at the same instants, also when the clock steps back.
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
  const { leewaySeconds: leeway, maxTokenAgeSeconds: maxAge } = rules;
  // Whole seconds, as jose reads its clock.
  const seconds = Math.floor(atMs / 1000);
  if (exp !== undefined && seconds - leeway >= exp) return "expired";
  if (nbf !== undefined && nbf > seconds + leeway) return "not yet valid";
  // jose checks iat only against a maximum age: a token issued ahead is refused here in any case.
  if (iat !== undefined && iat > atMs / 1000 + leeway) return "not yet valid";
  if (maxAge === 0) return undefined;
  if (iat === undefined) return "missing iat";
  return seconds - iat - leeway > maxAge ? "too old" : undefined;
}
