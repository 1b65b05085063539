// How tokens are checked: a development HS256 secret and/or an identity provider's public keys
// (a JWKS inline or at a URL), with the issuer, audience and claim names that provider uses.
import type { JSONWebKeySet } from "jose";
import { SettingsError } from "../settings/error.ts";

export const AUTH_SETTING_NAMES = [
  "AUTH_SECRET",
  "AUTH_JWKS",
  "AUTH_JWKS_URL",
  "AUTH_ISSUER",
  "AUTH_AUDIENCE",
  "AUTH_TENANT_CLAIM",
  "AUTH_ROLE_CLAIM",
  "AUTH_JWKS_CACHE_SECONDS",
  "AUTH_JWKS_STALE_IF_ERROR_SECONDS",
  "AUTH_CLOCK_LEEWAY_SECONDS",
] as const;

export interface AuthSettings {
  /** HS256 key for development; never beside a JWKS (refused), so it cannot sign beside the provider. */
  secret: string | undefined;
  jwks: JSONWebKeySet | undefined;
  jwksUrl: string | undefined;
  /** Required with a JWKS: a provider's keys sign for many issuers' tenants only when unchecked. */
  issuer: string | undefined;
  audience: string[] | undefined;
  tenantClaim: string;
  roleClaim: string;
  /** How long a fetched AUTH_JWKS_URL key set is fresh; after that it is refreshed in the background. */
  jwksCacheSeconds: number;
  /** How long past its fetch a key set still verifies while the provider cannot be reached. */
  jwksStaleIfErrorSeconds: number;
  /** Clock skew allowed for exp, nbf and iat. */
  clockLeewaySeconds: number;
}

export const MIN_AUTH_SECRET_BYTES = 32;
export const DEFAULT_TENANT_CLAIM = "tid";
export const DEFAULT_ROLE_CLAIM = "role";
export const DEFAULT_JWKS_CACHE_SECONDS = 600;
export const DEFAULT_JWKS_STALE_IF_ERROR_SECONDS = 86_400;
export const DEFAULT_CLOCK_LEEWAY_SECONDS = 60;
// RFC 8725 §3.10 asks for a small leeway: more would keep an expired token alive for minutes.
const MAX_CLOCK_LEEWAY_SECONDS = 60;

// Claims a provider sets with fixed meanings: none of them can carry a tenant or a role.
const REGISTERED_CLAIMS = new Set(["iss", "sub", "aud", "exp", "nbf", "iat", "jti"]);
// A top-level claim name: plain names and the URL-like names some providers use for custom claims.
const CLAIM_NAME = /^[A-Za-z0-9_:/.#-]{1,200}$/;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

export function parseAuthSettings(raw: Record<string, string | undefined>): AuthSettings {
  const secret = nonEmpty(raw.AUTH_SECRET);
  const jwksText = nonEmpty(raw.AUTH_JWKS);
  const jwksUrl = nonEmpty(raw.AUTH_JWKS_URL);
  if (secret !== undefined && new TextEncoder().encode(secret).length < MIN_AUTH_SECRET_BYTES) {
    throw new SettingsError("AUTH_SECRET", `must be at least ${MIN_AUTH_SECRET_BYTES} bytes`);
  }
  if (jwksText !== undefined && jwksUrl !== undefined) {
    throw new SettingsError("AUTH_JWKS", "and AUTH_JWKS_URL are both set: set one of them");
  }
  const jwks = jwksText === undefined ? undefined : parseJwks(jwksText);
  const url = jwksUrl === undefined ? undefined : parseJwksUrl(jwksUrl);
  const usesProvider = jwks !== undefined || url !== undefined;
  if (!usesProvider && secret === undefined) {
    throw new SettingsError(
      "AUTH_SECRET",
      "is not set: set AUTH_JWKS or AUTH_JWKS_URL (production) or AUTH_SECRET (development)",
    );
  }
  // One rule: the development key or the provider's, never both (an HS256 token beside the
  // provider's would be a second, shared way to sign for any tenant).
  if (usesProvider && secret !== undefined) {
    throw new SettingsError("AUTH_SECRET", "must not be set with AUTH_JWKS or AUTH_JWKS_URL: unset it");
  }
  const issuer = nonEmpty(raw.AUTH_ISSUER);
  if (usesProvider && issuer === undefined) {
    throw new SettingsError("AUTH_ISSUER", "is not set: with a JWKS it must name the iss your identity provider signs");
  }
  return {
    secret,
    jwks,
    jwksUrl: url,
    issuer,
    audience: parseAudience(raw.AUTH_AUDIENCE),
    tenantClaim: parseClaimName("AUTH_TENANT_CLAIM", raw.AUTH_TENANT_CLAIM, DEFAULT_TENANT_CLAIM),
    roleClaim: parseClaimName("AUTH_ROLE_CLAIM", raw.AUTH_ROLE_CLAIM, DEFAULT_ROLE_CLAIM),
    jwksCacheSeconds: parseSeconds(
      "AUTH_JWKS_CACHE_SECONDS",
      raw.AUTH_JWKS_CACHE_SECONDS,
      DEFAULT_JWKS_CACHE_SECONDS,
      1,
    ),
    jwksStaleIfErrorSeconds: parseSeconds(
      "AUTH_JWKS_STALE_IF_ERROR_SECONDS",
      raw.AUTH_JWKS_STALE_IF_ERROR_SECONDS,
      DEFAULT_JWKS_STALE_IF_ERROR_SECONDS,
      0,
    ),
    clockLeewaySeconds: parseSeconds(
      "AUTH_CLOCK_LEEWAY_SECONDS",
      raw.AUTH_CLOCK_LEEWAY_SECONDS,
      DEFAULT_CLOCK_LEEWAY_SECONDS,
      0,
      MAX_CLOCK_LEEWAY_SECONDS,
    ),
  };
}

function parseSeconds(setting: string, text: string | undefined, fallback: number, min: number, max = Infinity) {
  const value = nonEmpty(text?.trim());
  if (value === undefined) return fallback;
  const seconds = Number(value);
  if (!/^[0-9]+$/.test(value) || seconds < min || seconds > max) {
    const range = max === Infinity ? `at least ${min}` : `from ${min} to ${max}`;
    throw new SettingsError(setting, `must be a whole number of seconds, ${range}`);
  }
  return seconds;
}

function parseJwks(text: string): JSONWebKeySet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SettingsError("AUTH_JWKS", "is not JSON");
  }
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0)
    throw new SettingsError("AUTH_JWKS", 'must be a JWKS: {"keys": [...]}, with at least one key');
  for (const key of keys) {
    const kty = (key as { kty?: unknown } | null)?.kty;
    if (typeof kty !== "string") throw new SettingsError("AUTH_JWKS", "has a key without kty");
    // A symmetric key here would let anyone holding the "public" JWKS sign tokens.
    if (kty === "oct" || "d" in (key as object)) throw new SettingsError("AUTH_JWKS", "must hold public keys only");
  }
  return parsed as JSONWebKeySet;
}

function parseJwksUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SettingsError("AUTH_JWKS_URL", "is not a URL");
  }
  // Keys fetched in clear text could be swapped on the way; plain http only on this machine.
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname))) {
    throw new SettingsError("AUTH_JWKS_URL", "must be an https:// URL");
  }
  return url.href;
}

function parseAudience(text: string | undefined): string[] | undefined {
  const audiences = (text ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  return audiences.length === 0 ? undefined : audiences;
}

function parseClaimName(setting: string, text: string | undefined, fallback: string): string {
  const name = nonEmpty(text?.trim());
  if (name === undefined) return fallback;
  if (!CLAIM_NAME.test(name) || REGISTERED_CLAIMS.has(name)) {
    throw new SettingsError(setting, "must name a custom claim (letters, digits, _:/.#-), not a registered one");
  }
  return name;
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === "" ? undefined : value);
