// How tokens are checked: a development HS256 secret and/or an identity provider's public keys
// (a JWKS inline or at a URL), with the issuer, audience and claim names that provider uses.
import type { JSONWebKeySet } from "jose";
import * as v from "valibot";
import { isLoopbackHost } from "../lib/loopback.ts";
import { holdsCredentials, parsedUrl } from "../lib/url.ts";
import { SettingsError } from "../settings/error.ts";
import {
  commaList,
  keyOfAtLeast,
  optional,
  parseGroup,
  type RawSettings,
  seconds,
  settingsGroup,
  text,
  withDefault,
} from "../settings/schema.ts";
import { isPublishedSecret } from "./published-secrets.ts";

/**
 * Where AUTH_SECRET may sign: `local`, the local stack and the tests on this machine (set by
 * dev/launchers, no issuer needed); `deployment`, a deployment that chose a shared HS256 secret
 * over an identity provider. Unset, a deployment refuses AUTH_SECRET (edge/instance.ts).
 */
export type SecretScope = "local" | "deployment";

export interface AuthSettings {
  /** HS256 key for development; never beside a JWKS (refused), so it cannot sign beside the provider. */
  secret: string | undefined;
  /** Where `secret` may sign (AUTH_SECRET_SCOPE); undefined when unset. */
  secretScope: SecretScope | undefined;
  jwks: JSONWebKeySet | undefined;
  jwksUrl: string | undefined;
  /** Required with a JWKS: a provider's keys sign for many issuers' tenants only when unchecked. */
  issuer: string | undefined;
  /** Required with a JWKS: a provider signs for many APIs and clients, this one among them. */
  audience: string[] | undefined;
  tenantClaim: string;
  roleClaim: string;
  /** How long a fetched AUTH_JWKS_URL key set is fresh; after that it is refreshed in the background. */
  jwksCacheSeconds: number;
  /** How long past its fetch a key set still verifies while the provider cannot be reached. */
  jwksStaleIfErrorSeconds: number;
  /** Clock skew allowed for exp, nbf and iat. */
  clockLeewaySeconds: number;
  /** The oldest a token may be, from its iat (then required); 0: no limit, iat optional. */
  maxTokenAgeSeconds: number;
}

export const MIN_AUTH_SECRET_BYTES = 32;
export const DEFAULT_TENANT_CLAIM = "tid";
export const DEFAULT_ROLE_CLAIM = "role";
export const DEFAULT_JWKS_CACHE_SECONDS = 600;
export const DEFAULT_JWKS_STALE_IF_ERROR_SECONDS = 86_400;
export const DEFAULT_CLOCK_LEEWAY_SECONDS = 60;
export const DEFAULT_MAX_TOKEN_AGE_SECONDS = 86_400;
// A key set kept fresh for more than a day would keep a key the provider withdrew for as long; one
// kept through an outage for more than a week would outlive any provider's rotation.
const MAX_JWKS_CACHE_SECONDS = 86_400;
const MAX_JWKS_STALE_IF_ERROR_SECONDS = 604_800;
// The longest-lived tokens providers issue (service tokens) live a year at most.
const MAX_TOKEN_AGE_SECONDS = 31_536_000;
// RFC 8725 §3.10 asks for a small leeway: more would keep an expired token alive for minutes.
const MAX_CLOCK_LEEWAY_SECONDS = 60;

// Claims a provider sets with fixed meanings: none of them can carry a tenant or a role.
const REGISTERED_CLAIMS = new Set(["iss", "sub", "aud", "exp", "nbf", "iat", "jti"]);
// A top-level claim name: plain names and the URL-like names some providers use for custom claims.
const CLAIM_NAME = /^[A-Za-z0-9_:/.#-]{1,200}$/;

/** A claim a provider may use for the tenant or the role: named plainly, and not a registered one. */
const claimName = v.pipe(
  text,
  v.trim(),
  v.check(
    (name) => CLAIM_NAME.test(name) && !REGISTERED_CLAIMS.has(name),
    "must name a custom claim (letters, digits, _:/.#-), not a registered one",
  ),
);

export const AUTH_SETTINGS = settingsGroup(
  {
    AUTH_SECRET: optional(keyOfAtLeast(MIN_AUTH_SECRET_BYTES)),
    AUTH_JWKS: optional(v.pipe(text, v.transform(parseJwks))),
    AUTH_JWKS_URL: optional(v.pipe(text, v.transform(parseJwksUrl))),
    // Compared exactly with each token's iss: a space or line break a store kept around the value
    // would refuse every token as `wrong issuer`, naming no setting. AUTH_AUDIENCE's entries are trimmed too.
    AUTH_ISSUER: optional(v.pipe(text, v.trim())),
    AUTH_AUDIENCE: optional(commaList((audience) => audience, "audiences")),
    AUTH_TENANT_CLAIM: withDefault(claimName, DEFAULT_TENANT_CLAIM),
    AUTH_ROLE_CLAIM: withDefault(claimName, DEFAULT_ROLE_CLAIM),
    AUTH_SECRET_SCOPE: optional(
      v.pipe(text, v.trim(), v.picklist(["local", "deployment"], 'must be "local" or "deployment"')),
    ),
    AUTH_JWKS_CACHE_SECONDS: withDefault(seconds(1, MAX_JWKS_CACHE_SECONDS), String(DEFAULT_JWKS_CACHE_SECONDS)),
    AUTH_JWKS_STALE_IF_ERROR_SECONDS: withDefault(
      seconds(0, MAX_JWKS_STALE_IF_ERROR_SECONDS),
      String(DEFAULT_JWKS_STALE_IF_ERROR_SECONDS),
    ),
    AUTH_CLOCK_LEEWAY_SECONDS: withDefault(seconds(0, MAX_CLOCK_LEEWAY_SECONDS), String(DEFAULT_CLOCK_LEEWAY_SECONDS)),
    AUTH_MAX_TOKEN_AGE_SECONDS: withDefault(seconds(0, MAX_TOKEN_AGE_SECONDS), String(DEFAULT_MAX_TOKEN_AGE_SECONDS)),
  },
  (values) => ({ auth: checkedTogether(values) }),
);

/** The rules across the auth settings, once each is usable on its own. */
function checkedTogether(values: {
  AUTH_SECRET?: string;
  AUTH_JWKS?: JSONWebKeySet;
  AUTH_JWKS_URL?: string;
  AUTH_ISSUER?: string;
  AUTH_AUDIENCE?: string[];
  AUTH_TENANT_CLAIM: string;
  AUTH_ROLE_CLAIM: string;
  AUTH_JWKS_CACHE_SECONDS: number;
  AUTH_JWKS_STALE_IF_ERROR_SECONDS: number;
  AUTH_CLOCK_LEEWAY_SECONDS: number;
  AUTH_SECRET_SCOPE?: SecretScope;
  AUTH_MAX_TOKEN_AGE_SECONDS: number;
}): AuthSettings {
  const { AUTH_SECRET: secret, AUTH_JWKS: jwks, AUTH_JWKS_URL: jwksUrl, AUTH_ISSUER: issuer } = values;
  const secretScope = values.AUTH_SECRET_SCOPE;
  if (jwks !== undefined && jwksUrl !== undefined) {
    throw new SettingsError("AUTH_JWKS", "and AUTH_JWKS_URL are both set: set one of them");
  }
  const usesProvider = jwks !== undefined || jwksUrl !== undefined;
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
  // One claim cannot hold both: every token would be refused, but for a tenant named like a role,
  // whose tokens would all carry that role (a tenant "admin" of admins).
  if (values.AUTH_ROLE_CLAIM === values.AUTH_TENANT_CLAIM) {
    throw new SettingsError("AUTH_ROLE_CLAIM", "must name another claim than AUTH_TENANT_CLAIM");
  }
  if (secretScope !== undefined && secret === undefined) {
    throw new SettingsError("AUTH_SECRET_SCOPE", "is set without AUTH_SECRET: unset it");
  }
  const deployedSecret = secretScope === "deployment";
  if (deployedSecret) refusePublishedSecret(secret!);
  const what = deployedSecret ? "with a deployed AUTH_SECRET" : "with a JWKS";
  if ((usesProvider || deployedSecret) && issuer === undefined) {
    throw new SettingsError("AUTH_ISSUER", `is not set: ${what} it must name the iss the tokens carry`);
  }
  // RFC 8725 §3.9: a provider signs for every API and client it serves; without the audience, a
  // token meant for any of them (an ID token, another API's admin) would be taken for this one's.
  // A shared secret signs for whatever else holds it: the same holds.
  if ((usesProvider || deployedSecret) && values.AUTH_AUDIENCE === undefined) {
    throw new SettingsError("AUTH_AUDIENCE", `is not set: ${what} it must name the aud this API's tokens carry`);
  }
  return {
    secret,
    secretScope,
    jwks,
    jwksUrl,
    issuer,
    audience: values.AUTH_AUDIENCE,
    tenantClaim: values.AUTH_TENANT_CLAIM,
    roleClaim: values.AUTH_ROLE_CLAIM,
    jwksCacheSeconds: values.AUTH_JWKS_CACHE_SECONDS,
    jwksStaleIfErrorSeconds: values.AUTH_JWKS_STALE_IF_ERROR_SECONDS,
    clockLeewaySeconds: values.AUTH_CLOCK_LEEWAY_SECONDS,
    maxTokenAgeSeconds: values.AUTH_MAX_TOKEN_AGE_SECONDS,
  };
}

/** A deployment's secret must be its own: one written in this repository signs for anyone. */
function refusePublishedSecret(secret: string): void {
  if (isPublishedSecret(secret)) {
    throw new SettingsError(
      "AUTH_SECRET",
      "is published (a test's or an example's secret, or a placeholder): make your own, e.g. openssl rand -base64 48",
    );
  }
}

export const parseAuthSettings = (raw: RawSettings): AuthSettings => parseGroup(AUTH_SETTINGS, raw).auth;

function parseJwks(json: string): JSONWebKeySet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
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

function parseJwksUrl(address: string): string {
  const url = parsedUrl(address);
  if (!url) throw new SettingsError("AUTH_JWKS_URL", "is not a URL");
  // Keys fetched in clear text could be swapped on the way; plain http only on this machine.
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
    throw new SettingsError("AUTH_JWKS_URL", "must be an https:// URL");
  }
  if (holdsCredentials(url)) {
    throw new SettingsError("AUTH_JWKS_URL", "must be a URL without user or password: fetch refuses one");
  }
  return url.href;
}
