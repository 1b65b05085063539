import { describe, expect, it } from "vitest";
import { parseSettings, SETTING_NAMES, SettingsError } from "../../core/settings/settings.ts";
import { BOUND_CASES, expectBoundsHeld } from "../../test/support/setting-bounds.ts";
import { CONFIG_KEYS, SECRET_KEYS } from "./bindings.ts";
import { readFastlySettings } from "./settings.ts";

const configStore = (items: Record<string, string>) => ({ get: (key: string) => items[key] ?? null });
const secretStore = (items: Record<string, string>) => ({
  get: async (key: string) => (key in items ? { plaintext: () => items[key]! } : null),
});

describe("settings from Fastly stores", () => {
  it("splits every setting of core between the two stores, each once", () => {
    expect([...CONFIG_KEYS, ...SECRET_KEYS].sort()).toEqual([...SETTING_NAMES].sort());
  });

  it("reads plain settings from the config store and secrets from the secret store", async () => {
    const raw = await readFastlySettings(
      configStore({
        LINK_CACHE_TTL_SECONDS: "120",
        NEON_FETCH_ENDPOINT: "http://127.0.0.1:4444/sql",
      }),
      secretStore({ AUTH_SECRET: "s".repeat(32), DATABASE_URL: "postgres://u:p@h/db" }),
    );
    expect(raw).toEqual({
      LINK_CACHE_TTL_SECONDS: "120",
      NEON_FETCH_ENDPOINT: "http://127.0.0.1:4444/sql",
      AUTH_SECRET: "s".repeat(32),
      DATABASE_URL: "postgres://u:p@h/db",
    });
    expect(parseSettings(raw).linkCacheTtlSeconds).toBe(120);
  });

  it("a secret only ever comes from the secret store", async () => {
    const raw = await readFastlySettings(configStore({ AUTH_SECRET: "" }), secretStore({}));
    expect(raw.AUTH_SECRET).toBeUndefined();
    expect(() => parseSettings(raw)).toThrow(/AUTH_SECRET/);
  });

  // Left there, it was never read and nothing said so: AUTH_JWKS_KV_SECRET in the Config Store
  // left the kept key set unsigned, OTEL_EXPORTER_OTLP_HEADERS every export without its API key.
  it.each(SECRET_KEYS)("refuses %s in the config store, naming it and not its value", async (key) => {
    const read = readFastlySettings(configStore({ [key]: "value-of-a-secret" }), secretStore({}));
    await expect(read).rejects.toThrow(SettingsError);
    await expect(read).rejects.toThrow(new RegExp(`^${key} is in the Config Store settings: a secret is read`));
    await expect(read).rejects.not.toThrow("value-of-a-secret");
  });

  it("hold every bound of core's settings, each read from the store that holds it", async () => {
    const read = async (raw: Record<string, string>) => {
      const isSecret = ([key]: [string, string]) => (SECRET_KEYS as readonly string[]).includes(key);
      const entries = Object.entries(raw);
      const [secrets, settings] = [entries.filter(isSecret), entries.filter((entry) => !isSecret(entry))];
      return readFastlySettings(configStore(Object.fromEntries(settings)), secretStore(Object.fromEntries(secrets)));
    };
    const stored = new Map<string, Awaited<ReturnType<typeof read>>>();
    for (const raw of BOUND_CASES) stored.set(JSON.stringify(raw), await read(raw));
    expectBoundsHeld((raw) => parseSettings(stored.get(JSON.stringify(raw))!));
  });
});
