import { MIN_KV_TTL_SECONDS } from "./ports/kv.ts";

/** The same settings object on every runtime; each runtime only collects the raw strings. */
export interface Settings {
  authSecret: string;
  linkCacheTtlSeconds: number;
  databaseUrl: string | undefined;
  neonFetchEndpoint: string | undefined;
}

export type RawSettings = Record<string, string | undefined>;

export const DEFAULT_LINK_CACHE_TTL_SECONDS = 300;
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
    databaseUrl: nonEmpty(raw.DATABASE_URL),
    neonFetchEndpoint: nonEmpty(raw.NEON_FETCH_ENDPOINT),
  };
}

function parseTtl(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_LINK_CACHE_TTL_SECONDS;
  const seconds = Number(value);
  if (!Number.isInteger(seconds)) throw new SettingsError("LINK_CACHE_TTL_SECONDS must be a whole number");
  // Workers KV refuses shorter lifetimes; clamp rather than fail every cache write.
  return Math.max(seconds, MIN_KV_TTL_SECONDS);
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === "" ? undefined : value);
