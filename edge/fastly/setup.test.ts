// fastly.toml's [setup]: what the first `fastly compute deploy` creates. No Neon region is fixed
// in it, and every store entry it creates is a setting the service reads from that store.
import { readFileSync } from "node:fs";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { parseSettings, SettingsError } from "../../core/settings/settings.ts";
import {
  CONFIG_KEYS,
  CONFIG_STORE,
  JWKS_BACKEND,
  NEON_BACKEND,
  OTEL_BACKEND,
  SECRET_KEYS,
  SECRET_STORE,
} from "./bindings.ts";
import { requireNeonEndpoint } from "./settings.ts";

interface Setup {
  backends: Record<string, { address?: string; port?: number; description: string }>;
  config_stores: Record<string, { items: Record<string, { value: string }> }>;
  secret_stores: Record<string, { entries: Record<string, unknown> }>;
}
const setup = (
  parse(readFileSync(new URL("../../fastly.toml", import.meta.url), "utf8")) as unknown as { setup: Setup }
).setup;
const SECRET = "s".repeat(32);

describe("fastly.toml [setup]", () => {
  it("declares the named backends without a fixed address: the deploy asks for them", () => {
    expect(Object.keys(setup.backends).sort()).toEqual([JWKS_BACKEND, NEON_BACKEND, OTEL_BACKEND].sort());
    for (const backend of Object.values(setup.backends)) {
      expect(backend.address).toBeUndefined();
      expect(backend.port).toBe(443);
    }
  });

  it("creates every setting the service reads, each in the store it reads it from", () => {
    expect(Object.keys(setup.config_stores[CONFIG_STORE]!.items).sort()).toEqual([...CONFIG_KEYS].sort());
    // The development key is the one setting left to those who mean to set it.
    const secrets = SECRET_KEYS.filter((key) => key !== "AUTH_SECRET");
    expect(Object.keys(setup.secret_stores[SECRET_STORE]!.entries).sort()).toEqual(secrets.sort());
  });

  it("is what docs/deploy.md says the first publish creates: every backend and every secret", () => {
    const guide = readFileSync(new URL("../../docs/deploy.md", import.meta.url), "utf8");
    const publish = guide.match(/npx fastly compute publish[^\n]*\n((?:#[^\n]*\n)+)/)?.[1] ?? "";
    const backends = [...publish.matchAll(/backend (\w+)/g)].map((match) => match[1]);
    expect(backends.sort()).toEqual(Object.keys(setup.backends).sort());
    const secrets = publish.match(/secret store secrets \(([^;)]*)/)?.[1]?.split(/,\s*/) ?? [];
    expect(secrets.sort()).toEqual(Object.keys(setup.secret_stores[SECRET_STORE]!.entries).sort());
  });

  it("leaves every optional setting empty, which the service reads as unset", () => {
    const { NEON_FETCH_ENDPOINT: _placeholder, ...optional } = setup.config_stores[CONFIG_STORE]!.items;
    const defaults = Object.fromEntries(Object.entries(optional).map(([key, { value }]) => [key, value]));
    expect(() => parseSettings({ AUTH_SECRET: SECRET, ...defaults })).not.toThrow();
  });

  it("the Neon endpoint's placeholder is refused until it names a real host", () => {
    const placeholder = setup.config_stores[CONFIG_STORE]!.items.NEON_FETCH_ENDPOINT!.value;
    expect(() => parseSettings({ AUTH_SECRET: SECRET, NEON_FETCH_ENDPOINT: placeholder })).toThrow(
      /^NEON_FETCH_ENDPOINT /,
    );
  });
});

describe("requireNeonEndpoint", () => {
  it("refuses settings without NEON_FETCH_ENDPOINT, naming it", () => {
    const settings = parseSettings({
      AUTH_SECRET: SECRET,
      DATABASE_URL: "postgres://u:p@ep-x.eu-central-1.aws.neon.tech/db",
    });
    expect(() => requireNeonEndpoint(settings)).toThrow(SettingsError);
    expect(() => requireNeonEndpoint(settings)).toThrow(/^NEON_FETCH_ENDPOINT is not set/);
    const configured = { ...settings, neonFetchEndpoint: "https://api.eu-central-1.aws.neon.tech/sql" };
    expect(requireNeonEndpoint(configured)).toBe(configured);
  });
});
