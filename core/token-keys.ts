// Which keys and algorithms a token may be signed with. Public-key algorithms are checked only
// against the JWKS, HS256 only against AUTH_SECRET: a token whose header claims HS256 is never
// verified with a public key's bytes, so knowing the (public) JWKS signs nothing.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import type { AuthSettings } from "./auth-settings.ts";

/** What identity providers sign with: RSA, P-256 and Ed25519 (named EdDSA or Ed25519). */
const PUBLIC_KEY_ALGORITHMS = ["RS256", "ES256", "EdDSA", "Ed25519"];

export interface TokenKeyOptions {
  /** The `fetch` that loads AUTH_JWKS_URL (Fastly sends it through a named backend). */
  fetch?: typeof fetch;
  /** A fetched JWKS is reused this long before it is fetched again. */
  cacheMaxAgeMs?: number;
  /** An unknown `kid` refetches the JWKS at most once per this span (no refetch storm). */
  cooldownMs?: number;
}

const DEFAULT_JWKS_CACHE_MAX_AGE_MS = 10 * 60_000;
const DEFAULT_JWKS_COOLDOWN_MS = 30_000;

type VerifyToken = (token: string) => Promise<JWTPayload>;

/** AUTH_JWKS_URL could not be fetched or read: nothing is known about the token either way. */
export class KeysUnavailableError extends Error {
  override name = "KeysUnavailableError";
}

/** A verifier for the configured keys; throws (any error) for a token they do not accept. */
export function tokenVerifier(settings: AuthSettings, options: TokenKeyOptions = {}): VerifyToken {
  const secret = settings.secret === undefined ? undefined : hmacKey(settings.secret);
  const keySet = publicKeySet(settings, options);
  const algorithms = [...(secret ? ["HS256"] : []), ...(keySet ? PUBLIC_KEY_ALGORITHMS : [])];
  const verifyOptions = { algorithms, issuer: settings.issuer, audience: settings.audience };

  const keyFor: JWTVerifyGetKey = (header, token) => {
    if (header.alg === "HS256" && secret) return secret();
    if (keySet && PUBLIC_KEY_ALGORITHMS.includes(header.alg ?? "")) return keySet(header, token);
    throw new Error("no key for this algorithm");
  };

  return async (token) => (await jwtVerify(token, keyFor, verifyOptions)).payload;
}

/**
 * AUTH_SECRET as a WebCrypto key, imported on first use and kept: given the secret's bytes, jose
 * would import them again for every token, which was most of a cached lookup's CPU time.
 */
function hmacKey(secret: string): () => Promise<CryptoKey> {
  // Referenced for as long as the key: a WebCrypto may keep reading the bytes a raw key was
  // imported from instead of copying them (js-compute's does), and they must not be collected.
  const bytes = new TextEncoder().encode(secret);
  let key: Promise<CryptoKey> | undefined;
  return () => {
    key ??= crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
    return key;
  };
}

function publicKeySet(settings: AuthSettings, options: TokenKeyOptions): JWTVerifyGetKey | undefined {
  if (settings.jwks) return createLocalJWKSet(settings.jwks);
  if (!settings.jwksUrl) return undefined;
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  const remote = createRemoteJWKSet(new URL(settings.jwksUrl), {
    cacheMaxAge: options.cacheMaxAgeMs ?? DEFAULT_JWKS_CACHE_MAX_AGE_MS,
    cooldownDuration: options.cooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS,
    [customFetch]: (input: string, init: RequestInit) =>
      send(input, init).catch((error: unknown) => {
        throw new KeysUnavailableError(
          `the JWKS could not be fetched: ${error instanceof Error ? error.message : String(error)}`,
        );
      }),
  });
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      // The provider's fault: unreachable, too slow, not 200, not a JWKS. Anything else (no key
      // for the token's kid, a key type this runtime's WebCrypto lacks) is the token's.
      if (isProviderFault(error))
        throw error instanceof KeysUnavailableError ? error : new KeysUnavailableError(String(error));
      throw error;
    }
  };
}

function isProviderFault(error: unknown): boolean {
  return (
    error instanceof KeysUnavailableError ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    // jose's generic error is what it throws for a non-200 answer or a body that is not JSON.
    (error as object | null)?.constructor === errors.JOSEError
  );
}
