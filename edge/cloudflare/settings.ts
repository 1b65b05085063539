import { readSettings, type SettingName, type Settings } from "../../core/settings/settings.ts";
import type { WorkersKvNamespace } from "../kv/workers-kv.ts";

/** The worker's bindings (wrangler.toml): the KV namespace, and every setting as a var or secret. */
export type Bindings = { LINKS: WorkersKvNamespace } & Partial<Record<SettingName, string>>;

/** Settings from vars and secrets: the same object every runtime builds. */
export function settingsFromBindings(env: Bindings): Settings {
  return readSettings((name) => env[name]);
}
