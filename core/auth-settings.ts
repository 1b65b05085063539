// How tokens are checked: a development HS256 secret and/or an identity provider's public keys
// (a JWKS inline or at a URL), with the issuer, audience and claim names that provider uses.
import type { JSONWebKeySet } from "jose";
import { SettingsError } from "./settings-error.ts";

export const AUTH_SETTING_NAMES = [
  "AUTH_SECRET",
  "AUTH_JWKS",
  "AUTH_JWKS_URL",
  "AUTH_ISSUER",
  "AUTH_AUDIENCE",
  "AUTH_TENANT_CLAIM",
  "AUTH_ROLE_CLAIM",
] as const;

export interface AuthSettings {
  /** HS256 key; accepted only when set (development, or a deliberate shared-secret setup). */
  secret: string | undefined;
  jwks: JSONWebKeySet | undefined;
  jwksUrl: string | undefined;
  issuer: string | undefined;
  audience: string[] | undefined;
  tenantClaim: string;
  roleClaim: string;
}

export const MIN_AUTH_SECRET_BYTES = 32;
export const DEFAULT_TENANT_CLAIM = "tid";
export const DEFAULT_ROLE_CLAIM = "role";

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
  if (secret === undefined && jwksText === undefined && jwksUrl === undefined) {
    throw new SettingsError(
      "AUTH_SECRET",
      "is not set: set AUTH_JWKS or AUTH_JWKS_URL (production) or AUTH_SECRET (development)",
    );
  }
  return {
    secret,
    jwks: jwksText === undefined ? undefined : parseJwks(jwksText),
    jwksUrl: jwksUrl === undefined ? undefined : parseJwksUrl(jwksUrl),
    issuer: nonEmpty(raw.AUTH_ISSUER),
    audience: parseAudience(raw.AUTH_AUDIENCE),
    tenantClaim: parseClaimName("AUTH_TENANT_CLAIM", raw.AUTH_TENANT_CLAIM, DEFAULT_TENANT_CLAIM),
    roleClaim: parseClaimName("AUTH_ROLE_CLAIM", raw.AUTH_ROLE_CLAIM, DEFAULT_ROLE_CLAIM),
  };
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
