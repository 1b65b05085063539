import { LISTEN_SETTING_NAMES } from "../../core/server/listen-address.ts";
import { readSettings, SETTING_NAMES, type Settings } from "../../core/settings/settings.ts";

/** The variables the Deno entry may read: exactly what `--allow-env` grants it. */
export const DENO_ENV_NAMES = [...SETTING_NAMES, ...LISTEN_SETTING_NAMES, "DENO_KV_PATH"] as const;

/**
 * Read as the Neon driver loads (its bundled pg client's default role and native switch), not
 * settings: without access to them the entry would stop before reading any setting.
 */
export const DRIVER_ENV_NAMES = ["USER", "NODE_PG_FORCE_NATIVE"] as const;

/** Settings from `Deno.env`: the same object every runtime builds. */
export function settingsFromEnv(get: (name: string) => string | undefined): Settings {
  return readSettings(get);
}
