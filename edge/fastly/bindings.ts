// The names that tie the Fastly service to its resources. fastly.toml declares the same names for
// the local server ([local_server]) and for the first deploy ([setup]).

/** The KV Store behind the KvCache port. */
export const KV_STORE = "edge_cache";
/** Config Store: the settings that are not secret. */
export const CONFIG_STORE = "settings";
/** Secret Store: the HS256 key, the stored key set's MAC key and the connection string (it carries the database password). */
export const SECRET_STORE = "secrets";
/** The backend every Neon HTTP request goes to (Compute allows no request without a backend). */
export const NEON_BACKEND = "neon";
/** The backend AUTH_JWKS_URL is fetched through: the identity provider's host. */
export const JWKS_BACKEND = "jwks";
/** The backend traces are sent through: OTEL_EXPORTER_OTLP_ENDPOINT's host. */
export const OTEL_BACKEND = "otel";

import { SETTING_NAMES, type SettingName } from "../../core/settings/settings.ts";

/**
 * Secret Store keys: the HS256 key, the key of the MAC on the key set kept in the KV store (which
 * must never be where the store's writers can read it) and the connection string (it carries the
 * database password), and the collector's headers (an API key).
 */
export const SECRET_KEYS = [
  "AUTH_SECRET",
  "AUTH_JWKS_KV_SECRET",
  "DATABASE_URL",
  "OTEL_EXPORTER_OTLP_HEADERS",
] as const satisfies readonly SettingName[];
/**
 * Config Store keys: every other setting of core's, read from its list, so a new setting reaches
 * Fastly without an edit here (public keys and claim names among them: nothing there signs a token).
 */
export const CONFIG_KEYS: readonly SettingName[] = SETTING_NAMES.filter(
  (name) => !(SECRET_KEYS as readonly SettingName[]).includes(name),
);
