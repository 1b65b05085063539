// A client sends the same token with every request until it expires. Checking its signature
// again each time was most of a cached lookup's work (WebCrypto runs HMAC and RSA off the event
// loop and back), so a token that verified is remembered by its exact text for a short while.
// What the signature check decided cannot change for the same text and the same keys; what time
// decides (exp, nbf, iat) is checked again on every use, as the verifier checks it (time-claims.ts).
// Keys do change: an entry lives at most `maxAgeMs`, well below how long a fetched JWKS is fresh
// (10 minutes by default).
import type { JWTPayload } from "jose";
import { elapsedSince } from "../lib/elapsed.ts";
import { RecentMap } from "../lib/recent-map.ts";
import { timeRefusal } from "./time-claims.ts";
import type { VerifyToken } from "./verifier.ts";

export interface VerifiedTokenOptions {
  /** Tokens remembered at once; the oldest is forgotten first (default 512). */
  maxEntries?: number;
  /** How long a verification is trusted before the signature is checked again (default 60 s). */
  maxAgeMs?: number;
  /** The clock skew the verifier allows for exp and nbf, in seconds (default none). */
  leewaySeconds?: number;
  /** The oldest a token may be from its iat, in seconds, as the verifier checks it (default 0: any). */
  maxTokenAgeSeconds?: number;
  now?: () => number;
}

export function rememberVerifiedTokens(verify: VerifyToken, options: VerifiedTokenOptions = {}): VerifyToken {
  const {
    maxEntries = 512,
    maxAgeMs = 60_000,
    leewaySeconds = 0,
    maxTokenAgeSeconds = 0,
    now = () => Date.now(),
  } = options;
  const rules = { leewaySeconds, maxTokenAgeSeconds };
  const withinTime = (payload: JWTPayload, at: number) => timeRefusal(payload, at, rules) === undefined;
  const verified = new RecentMap<string, { payload: JWTPayload; verifiedAt: number }>(maxEntries);
  // A clock stepped back past an entry's verification would otherwise stretch `maxAgeMs` by the step.
  const recent = (verifiedAt: number, at: number) => elapsedSince(at, verifiedAt) < maxAgeMs;

  return async (token, background) => {
    const seen = verified.get(token);
    const at = now();
    if (seen && recent(seen.verifiedAt, at) && withinTime(seen.payload, at)) return seen.payload;
    verified.delete(token);
    const payload = await verify(token, background);
    verified.set(token, { payload, verifiedAt: at });
    return payload;
  };
}
