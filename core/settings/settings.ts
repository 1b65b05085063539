import { LINK_LIMIT_SETTING_NAMES, type LinkLimits, parseLinkLimits } from "../links/link-settings.ts";
import { MIN_KV_TTL_SECONDS } from "../ports/kv.ts";
import { AUTH_SETTING_NAMES, type AuthSettings, parseAuthSettings } from "../tokens/settings.ts";
import { SettingsError } from "./error.ts";

export { MIN_AUTH_SECRET_BYTES } from "../tokens/settings.ts";
export { SettingsError } from "./error.ts";

/** The same settings object on every runtime; each runtime only collects the raw strings. */
export interface Settings {
  auth: AuthSettings;
  linkCacheTtlSeconds: number;
  /** How often each deployment drains the link change feed into its KV cache. */
  linkSyncIntervalSeconds: number;
  /** LINK_MAX_PER_USER and LINK_PROVIDERS. */
  linkLimits: LinkLimits;
  /** How long an Idempotency-Key names the request it came with; a reuse after that creates anew. */
  idempotencyKeyTtlSeconds: number;
  databaseUrl: string | undefined;
  neonFetchEndpoint: string | undefined;
  /** Whether every response carries `Server-Timing` (SERVER_TIMING=on). */
  serverTiming: boolean;
  /** CORS_ORIGINS: the browser origins answered with CORS headers, exactly as a browser sends them. */
  corsOrigins: readonly string[];
}

export type RawSettings = Record<string, string | undefined>;

/** The names every runtime reads, whatever holds them (environment, bindings, stores). */
export const SETTING_NAMES = [
  ...AUTH_SETTING_NAMES,
  "DATABASE_URL",
  "NEON_FETCH_ENDPOINT",
  "LINK_CACHE_TTL_SECONDS",
  "LINK_SYNC_INTERVAL_SECONDS",
  ...LINK_LIMIT_SETTING_NAMES,
  "SERVER_TIMING",
  "IDEMPOTENCY_KEY_TTL_SECONDS",
  "CORS_ORIGINS",
] as const;

export type SettingName = (typeof SETTING_NAMES)[number];

export const DEFAULT_LINK_CACHE_TTL_SECONDS = 300;
export const DEFAULT_LINK_SYNC_INTERVAL_SECONDS = 10;
export const DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS = 86_400;
const MAX_SECONDS = 2_147_483_647;

/** Checks every setting; the first unusable one throws a SettingsError naming it (never its value). */
export function parseSettings(raw: RawSettings): Settings {
  return {
    auth: parseAuthSettings(raw),
    linkCacheTtlSeconds: parseTtl(raw.LINK_CACHE_TTL_SECONDS),
    linkSyncIntervalSeconds: parsePositiveSeconds(
      "LINK_SYNC_INTERVAL_SECONDS",
      raw.LINK_SYNC_INTERVAL_SECONDS,
      DEFAULT_LINK_SYNC_INTERVAL_SECONDS,
    ),
    idempotencyKeyTtlSeconds: parsePositiveSeconds(
      "IDEMPOTENCY_KEY_TTL_SECONDS",
      raw.IDEMPOTENCY_KEY_TTL_SECONDS,
      DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS,
    ),
    linkLimits: parseLinkLimits(raw),
    databaseUrl: parseDatabaseUrl(raw.DATABASE_URL),
    neonFetchEndpoint: parseHttpUrl("NEON_FETCH_ENDPOINT", raw.NEON_FETCH_ENDPOINT),
    serverTiming: parseOnOff("SERVER_TIMING", raw.SERVER_TIMING),
    corsOrigins: parseOrigins("CORS_ORIGINS", raw.CORS_ORIGINS),
  };
}

/** Settings from a runtime's own lookup: the same names, the same object, on every runtime. */
export function readSettings(read: (name: SettingName) => string | undefined): Settings {
  return parseSettings(Object.fromEntries(SETTING_NAMES.map((name) => [name, read(name)])));
}

function parseTtl(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_LINK_CACHE_TTL_SECONDS;
  const seconds = Number(value);
  if (!Number.isInteger(seconds)) throw new SettingsError("LINK_CACHE_TTL_SECONDS", "must be a whole number");
  // Workers KV refuses shorter lifetimes; clamp rather than fail every cache write.
  return Math.max(seconds, MIN_KV_TTL_SECONDS);
}

/** A typo such as postgress:// must not quietly fall back to another database. */
function parseDatabaseUrl(value: string | undefined): string | undefined {
  const url = nonEmpty(value);
  if (url === undefined) return undefined;
  if (!isPostgresUrl(url)) throw new SettingsError("DATABASE_URL", "must be a postgres:// or postgresql:// URL");
  return url;
}

function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//.test(value) && parsesAsUrl(value) && new URL(value).hostname !== "";
}

// Not URL.canParse: Fastly's runtime lacks it.
function parsesAsUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function parseHttpUrl(setting: string, value: string | undefined): string | undefined {
  const url = nonEmpty(value);
  if (url === undefined) return undefined;
  if (!/^https?:\/\//.test(url) || !parsesAsUrl(url))
    throw new SettingsError(setting, "must be an http:// or https:// URL");
  return url;
}

function parsePositiveSeconds(setting: SettingName, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === "") return fallback;
  const seconds = Number(value);
  // Postgres takes it as an int (make_interval): larger would fail every write that uses it.
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_SECONDS) {
    throw new SettingsError(setting, `must be a whole number of seconds, from 1 to ${MAX_SECONDS}`);
  }
  return seconds;
}

/** `on` or `off` (the default); anything else is a mistake, refused by name. */
function parseOnOff(setting: string, value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "off") return false;
  if (value === "on") return true;
  throw new SettingsError(setting, 'must be "on" or "off"');
}

/**
 * Comma-separated origins (`https://app.example.com`), compared as a browser sends them: scheme,
 * host and port only, no path, no wildcard. None by default.
 */
function parseOrigins(setting: string, value: string | undefined): readonly string[] {
  const origins = (value ?? "")
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "");
  for (const origin of origins) {
    if (!/^https?:\/\//.test(origin) || !parsesAsUrl(origin) || new URL(origin).origin !== origin) {
      throw new SettingsError(setting, "must be origins such as https://app.example.com, comma-separated");
    }
  }
  return origins;
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === "" ? undefined : value);
