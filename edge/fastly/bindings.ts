// The names that tie the Fastly service to its resources. fastly.toml declares the same names for
// the local server ([local_server]) and for the first deploy ([setup]).

/** The KV Store behind the KvCache port. */
export const KV_STORE = "edge_cache";
/** Config Store: the settings that are not secret. */
export const CONFIG_STORE = "settings";
/** Secret Store: the HS256 key and the connection string (it carries the database password). */
export const SECRET_STORE = "secrets";
/** The backend every Neon HTTP request goes to (Compute allows no request without a backend). */
export const NEON_BACKEND = "neon";
/** The backend AUTH_JWKS_URL is fetched through: the identity provider's host. */
export const JWKS_BACKEND = "jwks";

import type { SettingName } from "../../core/settings/settings.ts";

/** core's settings, split between the two stores. */
export const CONFIG_KEYS = [
  "LINK_CACHE_TTL_SECONDS",
  "LINK_SYNC_INTERVAL_SECONDS",
  "LINK_MAX_PER_USER",
  "LINK_PROVIDERS",
  "IDEMPOTENCY_KEY_TTL_SECONDS",
  "NEON_FETCH_ENDPOINT",
  "SERVER_TIMING",
  // Public keys and claim names: nothing here lets anyone sign a token.
  "AUTH_JWKS",
  "AUTH_JWKS_URL",
  "AUTH_ISSUER",
  "AUTH_AUDIENCE",
  "AUTH_TENANT_CLAIM",
  "AUTH_ROLE_CLAIM",
  "AUTH_JWKS_CACHE_SECONDS",
  "AUTH_JWKS_STALE_IF_ERROR_SECONDS",
  "AUTH_CLOCK_LEEWAY_SECONDS",
] as const satisfies readonly SettingName[];
export const SECRET_KEYS = ["AUTH_SECRET", "DATABASE_URL"] as const satisfies readonly SettingName[];
