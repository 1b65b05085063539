// AUTH_JWKS is read once and kept: a key in it that WebCrypto cannot import (an RSA key without
// `n`, an EC point off its curve) would otherwise refuse every token it should accept as
// `malformed`, naming no setting. Importing is asynchronous, so the check runs where a runtime
// can wait: at start on Node and Deno, before a token's first use everywhere.
import { importJWK, type JSONWebKeySet, type JWK } from "jose";
import { SettingsError } from "../settings/error.ts";

/** What identity providers sign with: RSA, P-256 and Ed25519 (named EdDSA or Ed25519). */
export const PUBLIC_KEY_ALGORITHMS = ["RS256", "ES256", "EdDSA", "Ed25519"];

/**
 * Whether a set holds a key some accepted algorithm verifies with. A fetched set without one (an
 * empty set, secret or encryption keys only) is a provider's bad answer, not a set to verify with:
 * taken, it would refuse every token as signed by an unknown key.
 */
export const holdsVerifyingKey = (jwks: JSONWebKeySet, accepted: readonly string[] = PUBLIC_KEY_ALGORITHMS) =>
  jwks.keys.some((key) => verifyingAlgorithm(key, accepted) !== undefined);

/** The algorithm a key is verified with, or undefined for a key no accepted algorithm uses. */
function verifyingAlgorithm(key: JWK, accepted: readonly string[]): string | undefined {
  if (key.use !== undefined && key.use !== "sig") return undefined;
  if (key.alg !== undefined) return accepted.includes(key.alg) ? key.alg : undefined;
  // Without `alg` a key is chosen by its type (and curve) for whichever accepted algorithm fits.
  if (key.kty === "RSA") return "RS256";
  if (key.kty === "EC") return key.crv === undefined || key.crv === "P-256" ? "ES256" : undefined;
  if (key.kty === "OKP") return key.crv === undefined || key.crv === "Ed25519" ? "EdDSA" : undefined;
  return undefined;
}

/** Throws a SettingsError naming AUTH_JWKS for the first key a token could select but not use. */
export async function checkKeySet(jwks: JSONWebKeySet, accepted: readonly string[]): Promise<void> {
  for (const [index, key] of jwks.keys.entries()) {
    const algorithm = verifyingAlgorithm(key, accepted);
    if (algorithm === undefined) continue;
    const name = key.kid === undefined ? `key ${index + 1}` : `key "${key.kid}"`;
    try {
      await importJWK(key, algorithm);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new SettingsError("AUTH_JWKS", `has ${name} that cannot be imported for ${algorithm}: ${reason}`);
    }
  }
}
