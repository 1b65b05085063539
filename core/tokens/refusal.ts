// Why a token was refused, in a few fixed words: sent back in RFC 6750's error_description and
// written to the request's log line, so that an operator tells a clock problem from a key rotation
// from an attack. Fixed words only: never a key, a kid, an expected issuer or audience, or a
// library's message, so the answer helps no one forge a token.
import { errors } from "jose";

export const TOKEN_REFUSALS = [
  "expired",
  "too old",
  "not yet valid",
  "wrong issuer",
  "wrong audience",
  "missing exp",
  "missing iat",
  "unknown key",
  "algorithm not accepted",
  "wrong type",
  "bad signature",
  "malformed",
  "invalid sub, tenant or role claim",
] as const;

export type TokenRefusal = (typeof TOKEN_REFUSALS)[number];

/** A refusal this project decides itself (not jose): the type, the algorithm, the time claims (time-claims.ts). */
export class TokenRefusedError extends Error {
  override name = "TokenRefusedError";
  constructor(readonly reason: TokenRefusal) {
    super(`the token is refused: ${reason}`);
  }
}

const CLAIM_REFUSALS: Record<string, TokenRefusal> = {
  exp: "missing exp",
  nbf: "not yet valid",
  iat: "not yet valid",
  iss: "wrong issuer",
  aud: "wrong audience",
};

/** What a failed verification means; anything unrecognised is a malformed token. */
export function refusalOf(error: unknown): TokenRefusal {
  if (error instanceof TokenRefusedError) return error.reason;
  // jose says "expired" of a token past AUTH_MAX_TOKEN_AGE_SECONDS too: its claim is then iat.
  if (error instanceof errors.JWTExpired) return error.claim === "iat" ? "too old" : "expired";
  // A claim of the wrong type (a string exp) is malformed, whichever claim it is.
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "invalid") return "malformed";
    if (error.reason === "missing" && error.claim === "iat") return "missing iat";
    return CLAIM_REFUSALS[error.claim] ?? "malformed";
  }
  if (error instanceof errors.JWKSNoMatchingKey) return "unknown key";
  if (error instanceof errors.JOSEAlgNotAllowed) return "algorithm not accepted";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "bad signature";
  return "malformed";
}
