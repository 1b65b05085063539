import { LISTEN_SETTING_NAMES } from "../../core/listen-address.ts";
import { readSettings, SETTING_NAMES, type Settings } from "../../core/settings.ts";

/** The variables the Deno entry may read: exactly what `--allow-env` grants it. */
export const DENO_ENV_NAMES = [...SETTING_NAMES, ...LISTEN_SETTING_NAMES, "DENO_KV_PATH"] as const;

/** Settings from `Deno.env`: the same object every runtime builds. */
export function settingsFromEnv(get: (name: string) => string | undefined): Settings {
  return readSettings(get);
}
