import { describe, expect, it } from "vitest";
import { parseSettings, SETTING_NAMES } from "../../core/settings/settings.ts";
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
        AUTH_SECRET: "not here",
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
    const raw = await readFastlySettings(configStore({ AUTH_SECRET: "s".repeat(40) }), secretStore({}));
    expect(raw.AUTH_SECRET).toBeUndefined();
    expect(() => parseSettings(raw)).toThrow(/AUTH_SECRET/);
  });

  it("hold every bound of core's settings, each read from the store that holds it", async () => {
    const read = async (raw: Record<string, string>) => {
      const secrets = Object.fromEntries(SECRET_KEYS.flatMap((key) => (key in raw ? [[key, raw[key]!]] : [])));
      return readFastlySettings(configStore(raw), secretStore(secrets));
    };
    const stored = new Map<string, Awaited<ReturnType<typeof read>>>();
    for (const raw of BOUND_CASES) stored.set(JSON.stringify(raw), await read(raw));
    expectBoundsHeld((raw) => parseSettings(stored.get(JSON.stringify(raw))!));
  });
});
