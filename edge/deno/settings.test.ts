import { describe, expect, it } from "vitest";
import { expectBoundsHeld } from "../../test/support/setting-bounds.ts";
import { DENO_ENV_NAMES, settingsFromEnv } from "./settings.ts";

describe("settings from Deno.env", () => {
  it("hold every bound of core's settings", () => {
    expectBoundsHeld((raw) => settingsFromEnv((name) => raw[name]));
  });

  it("are read only by the names --allow-env grants", () => {
    const asked = new Set<string>();
    settingsFromEnv((name) => {
      asked.add(name);
      return name === "AUTH_SECRET" ? "s".repeat(32) : undefined;
    });
    expect([...asked].filter((name) => !(DENO_ENV_NAMES as readonly string[]).includes(name))).toEqual([]);
  });

  it("read how often the rate limits sync with Deno KV: 1000 ms unless set, a bad value named", () => {
    const read = (raw: Record<string, string>) =>
      settingsFromEnv((name) => ({ AUTH_SECRET: "s".repeat(32), ...raw })[name]).deno.rateLimitSyncMs;
    expect(read({})).toBe(1000);
    expect(read({ RATE_LIMIT_SYNC_MILLISECONDS: "250" })).toBe(250);
    expect(() => read({ RATE_LIMIT_SYNC_MILLISECONDS: "0" })).toThrow(/^RATE_LIMIT_SYNC_MILLISECONDS must be/);
    expect(() => read({ RATE_LIMIT_SYNC_MILLISECONDS: "60001" })).toThrow(/RATE_LIMIT_SYNC_MILLISECONDS/);
  });
});
