// A client sends the same token with every request until it expires. Checking its signature
// again each time was most of a cached lookup's work (WebCrypto runs HMAC and RSA off the event
// loop and back), so a token that verified is remembered by its exact text for a short while.
// What the signature check decided cannot change for the same text and the same keys; what time
// decides (exp, nbf, the age from iat) is checked again on every use, with the verifier's leeway. Keys do change: an
// entry lives at most `maxAgeMs`, well below how long a fetched JWKS is fresh (10 minutes by default).
import type { JWTPayload } from "jose";
import { RecentMap } from "../lib/recent-map.ts";
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
  const withinTime = (payload: JWTPayload, at: number) =>
    withinTimeClaims(payload, at, leewaySeconds) && youngEnough(payload, at, leewaySeconds, maxTokenAgeSeconds);
  const verified = new RecentMap<string, { payload: JWTPayload; until: number }>(maxEntries);

  return async (token, background) => {
    const seen = verified.get(token);
    const at = now();
    if (seen && at < seen.until && withinTime(seen.payload, at)) return seen.payload;
    verified.delete(token);
    const payload = await verify(token, background);
    verified.set(token, { payload, until: at + maxAgeMs });
    return payload;
  };
}

/** exp and nbf as jose checks them (seconds since the epoch, with the same tolerance). */
function withinTimeClaims({ exp, nbf }: JWTPayload, nowMs: number, leeway: number): boolean {
  const seconds = Math.floor(nowMs / 1000);
  return (exp === undefined || seconds - leeway < exp) && (nbf === undefined || seconds + leeway >= nbf);
}

/** iat within the maximum age as jose checks it (the verifier required iat when there is one). */
function youngEnough({ iat }: JWTPayload, nowMs: number, leeway: number, maxAge: number): boolean {
  return maxAge === 0 || (iat !== undefined && Math.floor(nowMs / 1000) - iat - leeway <= maxAge);
}
