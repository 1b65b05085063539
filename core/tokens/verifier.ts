// Which keys and algorithms a token may be signed with, and the checks RFC 8725 asks of every
// token. Public-key algorithms are checked only against the JWKS, HS256 only against AUTH_SECRET:
// a token whose header claims HS256 is never verified with a public key's bytes, so knowing the
// (public) JWKS signs nothing.
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from "jose";
import { type Logger, silentLogger } from "../log.ts";
import { DEFAULT_KV_TIMEOUT_MS, type KvCache } from "../ports/kv.ts";
import { type Background, type CachedKeySet, cachedRemoteKeySet, FIRST_RETRY_MS } from "./jwks-cache.ts";
import { checkKeySet, PUBLIC_KEY_ALGORITHMS } from "./key-check.ts";
import { keySetMac } from "./key-set-mac.ts";
import { TokenRefusedError } from "./refusal.ts";
import type { AuthSettings } from "./settings.ts";
import { kvKeySetStore } from "./stored-key-set.ts";
import { timeRefusal } from "./time-claims.ts";

// RFC 8725 §3.11: a token typed for something else (a logout or DPoP token…) is no access token.
// Providers send JWT or at+jwt (RFC 9068), or no typ at all.
const ACCEPTED_TYPES = new Set(["jwt", "at+jwt", "application/jwt", "application/at+jwt"]);

export interface TokenKeyOptions {
  /** The `fetch` that loads AUTH_JWKS_URL (Fastly sends it through a named backend). */
  fetch?: typeof fetch;
  /** An unknown `kid` refetches the JWKS at most once per this span (no refetch storm). */
  cooldownMs?: number;
  /** Where the last good AUTH_JWKS_URL set outlives the instance (the deployment's KV store). */
  kv?: KvCache;
  /** AUTH_JWKS_KV_SECRET: signs the set kept in `kv`, and a copy it did not sign is refused (key-set-mac.ts). */
  kvSecret?: string;
  /** Where a failing KV store is reported. */
  logger?: Logger;
  now?: () => number;
}

const DEFAULT_JWKS_COOLDOWN_MS = 30_000;

export type VerifyToken = (token: string, background?: Background) => Promise<JWTPayload>;

/** A verifier for the configured keys; throws (any error) for a token they do not accept. */
export function tokenVerifier(settings: AuthSettings, options: TokenKeyOptions = {}): VerifyToken {
  const secret = settings.secret === undefined ? undefined : hmacKey(settings.secret);
  const keySet = publicKeySet(settings, options);
  const algorithms = [...(secret ? ["HS256"] : []), ...(keySet ? PUBLIC_KEY_ALGORITHMS : [])];
  // Read at each use, not bound now: a test may replace the clock after the app is made.
  const now = options.now ?? (() => Date.now());
  const leeway = settings.clockLeewaySeconds;
  const maxAge = settings.maxTokenAgeSeconds;
  const timeRules = { leewaySeconds: leeway, maxTokenAgeSeconds: maxAge };
  const verifyOptions = {
    algorithms,
    issuer: settings.issuer,
    audience: settings.audience,
    // With a maximum age, iat is what it is measured from: jose then requires it too.
    requiredClaims: maxAge > 0 ? ["exp", "iat"] : ["exp"],
    ...(maxAge > 0 ? { maxTokenAge: maxAge } : {}),
    clockTolerance: leeway,
  };

  return async (token, background) => {
    const keyFor: JWTVerifyGetKey = (header, jwt) => {
      if (header.typ !== undefined && !ACCEPTED_TYPES.has(header.typ.toLowerCase())) {
        throw new TokenRefusedError("wrong type");
      }
      if (header.alg === "HS256" && secret) return secret();
      if (keySet && PUBLIC_KEY_ALGORITHMS.includes(header.alg ?? "")) return keySet(header, jwt, background);
      throw new TokenRefusedError("algorithm not accepted");
    };
    const at = now();
    const { payload } = await jwtVerify(token, keyFor, { ...verifyOptions, currentDate: new Date(at) });
    const refusal = timeRefusal(payload, at, timeRules);
    if (refusal) throw new TokenRefusedError(refusal);
    return payload;
  };
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

// One import of each AUTH_JWKS per key set: the runtime's check at start and the verifier's before
// its first token are the same promise. Made on first use, never sooner: a rejection nobody awaits
// yet would end a Node process.
const keyChecks = new WeakMap<JSONWebKeySet, Promise<void>>();

function keysChecked(jwks: JSONWebKeySet): Promise<void> {
  let check = keyChecks.get(jwks);
  if (!check) keyChecks.set(jwks, (check = checkKeySet(jwks, PUBLIC_KEY_ALGORITHMS)));
  return check;
}

/** Where a runtime can wait at start: throws a SettingsError for an AUTH_JWKS key no token could use. */
export async function checkTokenKeys(settings: AuthSettings): Promise<void> {
  if (settings.jwks) await keysChecked(settings.jwks);
}

function publicKeySet(settings: AuthSettings, options: TokenKeyOptions): CachedKeySet | undefined {
  if (settings.jwks) {
    const jwks = settings.jwks;
    const local = createLocalJWKSet(jwks);
    return async (header, token) => {
      await keysChecked(jwks);
      return local(header, token);
    };
  }
  if (!settings.jwksUrl) return undefined;
  const url = settings.jwksUrl;
  const freshMs = settings.jwksCacheSeconds * 1000;
  const staleIfErrorMs = settings.jwksStaleIfErrorSeconds * 1000;
  const store =
    options.kv &&
    kvKeySetStore(options.kv, {
      url,
      freshMs,
      lifetimeMs: freshMs + staleIfErrorMs,
      readEveryMs: FIRST_RETRY_MS,
      timeoutMs: DEFAULT_KV_TIMEOUT_MS,
      mac: options.kvSecret === undefined ? undefined : keySetMac(options.kvSecret),
      logger: options.logger ?? silentLogger,
      now: options.now,
    });
  return cachedRemoteKeySet({
    url,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    freshMs,
    staleIfErrorMs,
    cooldownMs: options.cooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS,
    store,
    logger: options.logger,
    now: options.now,
  });
}
