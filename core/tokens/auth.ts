import * as v from "valibot";
import { ProblemError } from "../http/problem.ts";
import { maxCodePoints } from "../http/validation.ts";
import { SettingsError } from "../settings/error.ts";
import { type Background, KeysUnavailableError } from "./jwks-cache.ts";
import { refusalOf, type TokenRefusal } from "./refusal.ts";
import type { AuthSettings } from "./settings.ts";
import { rememberVerifiedTokens } from "./verified-tokens.ts";
import { type TokenKeyOptions, tokenVerifier } from "./verifier.ts";

export type Role = "user" | "service" | "admin";

export interface Principal {
  userId: string;
  tenantId: string;
  role: Role;
}

/**
 * The tenant migration sql/0006 gave the links stored before tenants existed: they are the
 * operator's to move to a real tenant (docs/API.md), never any token's to see or change.
 */
export const RESERVED_TENANT = "legacy";

const ClaimsSchema = v.object({
  // Control characters (NUL above all) cannot be stored in Postgres text, and a lone surrogate would
  // be stored as U+FFFD, merging two subjects into one user: refuse both here.
  sub: v.pipe(v.string(), v.minLength(1), maxCodePoints(128), v.regex(/^[^\u0000-\u001f\u007f\p{Cs}]+$/u)),
  tid: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z0-9_-]{1,64}$/),
    v.check((tid) => tid !== RESERVED_TENANT),
  ),
  role: v.optional(v.picklist(["user", "service", "admin"]), "user"),
});

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)$/i;
// Something after the scheme that is no token68 (quoted, two words, "Bearer Bearer …") was sent as
// a token: it is refused as malformed, not answered as if none had been sent. Only asked once
// BEARER failed, so a request with a token pays nothing for it.
const SENT_AS_BEARER = /^Bearer[ ]+\S/i;

// RFC 6750 §3.1: a request without a bearer token gets no error code, only the challenge.
const tokenRequired = () =>
  new ProblemError(
    401,
    "unauthorized",
    "A Bearer token is required.",
    {},
    { "www-authenticate": 'Bearer realm="api"' },
  );

// A refused token gets invalid_token, and why in fixed words (refusal.ts): the request's log line
// carries the same challenge.
const tokenRefused = (reason: TokenRefusal) =>
  new ProblemError(
    401,
    "unauthorized",
    `The token is refused: ${reason}.`,
    {},
    { "www-authenticate": `Bearer realm="api", error="invalid_token", error_description="${reason}"` },
  );

// The provider's keys could not be fetched: the token may be fine, so this is no 401.
const keysUnavailable = () =>
  new ProblemError(
    503,
    "keys_unavailable",
    "The identity provider's keys cannot be fetched; retry shortly.",
    {},
    { "retry-after": "5" },
  );

/**
 * Returns a verifier bound to the configured keys (see verifier.ts); other algorithms, `alg: none`
 * included, are refused. The tenant and role are read from the claims the settings name.
 */
export function createAuthenticator(settings: AuthSettings, options: TokenKeyOptions = {}) {
  const verify = rememberVerifiedTokens(tokenVerifier(settings, options), {
    leewaySeconds: settings.clockLeewaySeconds,
    maxTokenAgeSeconds: settings.maxTokenAgeSeconds,
    now: options.now,
  });
  // A remembered token comes back as the same payload object: its claims were checked already.
  const principals = new WeakMap<object, Principal>();

  /** `background` keeps a key set refresh alive past the answer, where the platform needs it. */
  return async function authenticate(authorization: string | undefined, background?: Background): Promise<Principal> {
    const token = authorization?.match(BEARER)?.[1];
    if (!token) throw SENT_AS_BEARER.test(authorization ?? "") ? tokenRefused("malformed") : tokenRequired();
    let payload: unknown;
    try {
      payload = await verify(token, background);
    } catch (error) {
      if (error instanceof KeysUnavailableError) throw keysUnavailable();
      // A configured key no token can be checked with: the service's fault, named, not the caller's.
      if (error instanceof SettingsError) throw error;
      throw tokenRefused(refusalOf(error));
    }
    const known = principals.get(payload as object);
    if (known) return known;
    const claims = v.safeParse(ClaimsSchema, standardClaims(payload as Record<string, unknown>, settings));
    if (!claims.success) throw tokenRefused("invalid sub, tenant or role claim");
    const principal = Object.freeze({
      userId: claims.output.sub,
      tenantId: claims.output.tid,
      role: claims.output.role,
    });
    principals.set(payload as object, principal);
    return principal;
  };
}

/** The provider's tenant and role claims under the names the schema checks. */
function standardClaims(payload: Record<string, unknown>, { tenantClaim, roleClaim }: AuthSettings) {
  return { sub: payload.sub, tid: payload[tenantClaim], role: payload[roleClaim] };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
