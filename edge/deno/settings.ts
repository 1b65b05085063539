import { parseSettings, type Settings } from "../../core/settings.ts";

/** The variables the Deno entry may read: exactly what `--allow-env` grants it. */
export const DENO_ENV_NAMES = [
  "AUTH_SECRET",
  "DATABASE_URL",
  "NEON_FETCH_ENDPOINT",
  "LINK_CACHE_TTL_SECONDS",
  "PORT",
  "DENO_KV_PATH",
  // Read by the Neon driver's bundled pg defaults when it loads (Deno's `process.env` is guarded).
  "USER",
  "NODE_PG_FORCE_NATIVE",
] as const;

/** Settings from `Deno.env`: the same object every runtime builds. */
export function settingsFromEnv(get: (name: string) => string | undefined): Settings {
  return parseSettings({
    AUTH_SECRET: get("AUTH_SECRET"),
    DATABASE_URL: get("DATABASE_URL"),
    NEON_FETCH_ENDPOINT: get("NEON_FETCH_ENDPOINT"),
    LINK_CACHE_TTL_SECONDS: get("LINK_CACHE_TTL_SECONDS"),
  });
}
