import { MIN_KV_TTL_SECONDS } from "./ports/kv.ts";

/** The same settings object on every runtime; each runtime only collects the raw strings. */
export interface Settings {
  authSecret: string;
  linkCacheTtlSeconds: number;
  /** How often each deployment drains the link change feed into its KV cache. */
  linkSyncIntervalSeconds: number;
  databaseUrl: string | undefined;
  neonFetchEndpoint: string | undefined;
}

export type RawSettings = Record<string, string | undefined>;

/** The names every runtime reads, whatever holds them (environment, bindings, stores). */
export const SETTING_NAMES = [
  "AUTH_SECRET",
  "DATABASE_URL",
  "NEON_FETCH_ENDPOINT",
  "LINK_CACHE_TTL_SECONDS",
  "LINK_SYNC_INTERVAL_SECONDS",
] as const;

export type SettingName = (typeof SETTING_NAMES)[number];

export const DEFAULT_LINK_CACHE_TTL_SECONDS = 300;
export const DEFAULT_LINK_SYNC_INTERVAL_SECONDS = 10;
export const MIN_AUTH_SECRET_BYTES = 32;

export class SettingsError extends Error {
  override name = "SettingsError";
}

export function parseSettings(raw: RawSettings): Settings {
  const authSecret = raw.AUTH_SECRET ?? "";
  if (new TextEncoder().encode(authSecret).length < MIN_AUTH_SECRET_BYTES) {
    throw new SettingsError(`AUTH_SECRET must be at least ${MIN_AUTH_SECRET_BYTES} bytes`);
  }
  return {
    authSecret,
    linkCacheTtlSeconds: parseTtl(raw.LINK_CACHE_TTL_SECONDS),
    linkSyncIntervalSeconds: parseSyncInterval(raw.LINK_SYNC_INTERVAL_SECONDS),
    databaseUrl: nonEmpty(raw.DATABASE_URL),
    neonFetchEndpoint: nonEmpty(raw.NEON_FETCH_ENDPOINT),
  };
}

/** Settings from a runtime's own lookup: the same names, the same object, on every runtime. */
export function readSettings(read: (name: SettingName) => string | undefined): Settings {
  return parseSettings(Object.fromEntries(SETTING_NAMES.map((name) => [name, read(name)])));
}

function parseTtl(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_LINK_CACHE_TTL_SECONDS;
  const seconds = Number(value);
  if (!Number.isInteger(seconds)) throw new SettingsError("LINK_CACHE_TTL_SECONDS must be a whole number");
  // Workers KV refuses shorter lifetimes; clamp rather than fail every cache write.
  return Math.max(seconds, MIN_KV_TTL_SECONDS);
}

function parseSyncInterval(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_LINK_SYNC_INTERVAL_SECONDS;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1) {
    throw new SettingsError("LINK_SYNC_INTERVAL_SECONDS must be a whole number of seconds, at least 1");
  }
  return seconds;
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === "" ? undefined : value);
