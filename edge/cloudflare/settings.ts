import { readSettings, type Settings } from "../../core/settings.ts";
import type { WorkersKvNamespace } from "../kv/workers-kv.ts";

/** The worker's bindings (wrangler.toml): the KV namespace, vars and secrets. */
export interface Bindings {
  LINKS: WorkersKvNamespace;
  AUTH_SECRET?: string;
  DATABASE_URL?: string;
  NEON_FETCH_ENDPOINT?: string;
  LINK_CACHE_TTL_SECONDS?: string;
  LINK_SYNC_INTERVAL_SECONDS?: string;
}

/** Settings from vars and secrets: the same object every runtime builds. */
export function settingsFromBindings(env: Bindings): Settings {
  return readSettings((name) => env[name]);
}
