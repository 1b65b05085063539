import { RATE_LIMIT_WINDOW_SECONDS } from "../../core/ports/rate-limit.ts";
import { LISTEN_SETTING_NAMES } from "../../core/server/listen-address.ts";
import { namesOf, parseGroup, settingsGroup, wholeNumber, withDefault } from "../../core/settings/schema.ts";
import { readSettings, SETTING_NAMES, type Settings } from "../../core/settings/settings.ts";

/**
 * How often an instance adds its rate-limit counts to Deno KV and reads the totals back
 * (edge/rate-limit/batched.ts): the excess over a quota grows with it (docs/limits.md), the
 * writes shrink. Past a window, an instance would learn of the others' requests only after it turned.
 */
export const DENO_SETTINGS = settingsGroup(
  {
    RATE_LIMIT_SYNC_MILLISECONDS: withDefault(
      wholeNumber(1, RATE_LIMIT_WINDOW_SECONDS * 1000, "a whole number of milliseconds"),
      "1000",
    ),
  },
  (values) => ({ rateLimitSyncMs: values.RATE_LIMIT_SYNC_MILLISECONDS }),
);

/** The variables the Deno entry may read: exactly what `--allow-env` grants it. */
export const DENO_ENV_NAMES = [
  ...SETTING_NAMES,
  ...LISTEN_SETTING_NAMES,
  ...namesOf(DENO_SETTINGS),
  "DENO_KV_PATH",
] as const;

/**
 * Read as the Neon driver loads (its bundled pg client's default role and native switch), not
 * settings: without access to them the entry would stop before reading any setting.
 */
export const DRIVER_ENV_NAMES = ["USER", "NODE_PG_FORCE_NATIVE"] as const;

/** Settings from `Deno.env`: the same object every runtime builds, and Deno's own. */
export function settingsFromEnv(
  get: (name: string) => string | undefined,
): Settings & { deno: { rateLimitSyncMs: number } } {
  const deno = parseGroup(DENO_SETTINGS, Object.fromEntries(namesOf(DENO_SETTINGS).map((name) => [name, get(name)])));
  return { ...readSettings(get), deno };
}
