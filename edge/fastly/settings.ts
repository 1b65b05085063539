import { type RawSettings, type Settings, SettingsError } from "../../core/settings/settings.ts";
import { CONFIG_KEYS, CONFIG_STORE, SECRET_KEYS, SECRET_STORE } from "./bindings.ts";

/** What is used of `ConfigStore` (fastly:config-store) and `SecretStore` (fastly:secret-store). */
export interface ConfigSource {
  get(key: string): string | null;
}
export interface SecretSource {
  get(key: string): Promise<{ plaintext(): string } | null>;
}

/**
 * The raw settings of core/settings/settings.ts, from a Config Store and a Secret Store. A secret
 * is read from the Secret Store only; one found in the Config Store is refused by name, as it would
 * otherwise be unset without a word (and shown to whoever may read the service's configuration).
 */
export async function readFastlySettings(config: ConfigSource, secrets: SecretSource): Promise<RawSettings> {
  const raw: RawSettings = {};
  for (const key of CONFIG_KEYS) raw[key] = config.get(key) ?? undefined;
  for (const key of SECRET_KEYS) {
    if (config.get(key)?.trim()) {
      throw new SettingsError(
        key,
        `is in the Config Store ${CONFIG_STORE}: a secret is read only from the Secret Store ${SECRET_STORE}`,
      );
    }
    raw[key] = (await secrets.get(key))?.plaintext();
  }
  return raw;
}

/**
 * On Fastly every Neon request leaves through the `neon` backend, whose address is fixed when the
 * service is set up: the endpoint must be configured next to it (same host), never guessed from a
 * region, so a database in another region fails here, by name, rather than on every query.
 */
export function requireNeonEndpoint(settings: Settings): Settings {
  if (!settings.neonFetchEndpoint) {
    throw new SettingsError("NEON_FETCH_ENDPOINT", "is not set: on Fastly it is https://<the neon backend's host>/sql");
  }
  return settings;
}
