import { describe, expect, it } from "vitest";
import { SettingsError } from "../../core/settings/settings.ts";
import { expectBoundsHeld } from "../../test/support/setting-bounds.ts";
import type { WorkersKvNamespace } from "../kv/workers-kv.ts";
import { invocationLimits, RESERVED_KV_OPERATIONS, settingsFromBindings } from "./settings.ts";

const LINKS = {} as WorkersKvNamespace;

describe("WORKERS_SUBREQUESTS", () => {
  it("defaults to the Free plan's 50 subrequests, two of them left to other fetches", () => {
    expect(invocationLimits({ LINKS })).toEqual({ kvOperations: 998, sqlStatements: 48 });
  });

  // Workers' 1,000 KV operations, less the read and write of the kept key set that a request's
  // sign-in may make beside a resync (kv-budget.integration.test.ts counts them all).
  it("leaves 2 of an invocation's 1,000 KV operations to the sign-in, whatever the plan", () => {
    expect(invocationLimits({ LINKS }).kvOperations).toBe(1_000 - RESERVED_KV_OPERATIONS);
    expect(RESERVED_KV_OPERATIONS).toBe(2);
    expect(invocationLimits({ LINKS, WORKERS_SUBREQUESTS: "10000" }).kvOperations).toBe(998);
  });

  it("takes the Paid plan's figure, and any larger one", () => {
    expect(invocationLimits({ LINKS, WORKERS_SUBREQUESTS: " 10000 " })).toEqual({
      kvOperations: 998,
      sqlStatements: 9_998,
    });
    expect(invocationLimits({ LINKS, WORKERS_SUBREQUESTS: "10" }).sqlStatements).toBe(8);
    expect(invocationLimits({ LINKS, WORKERS_SUBREQUESTS: "2147483647" }).sqlStatements).toBe(2_147_483_645);
  });

  it.each(["ten", "9", "-50", "50.5", "1e3", "2147483648"])("refuses %j, naming the setting", (value) => {
    expect(() => invocationLimits({ LINKS, WORKERS_SUBREQUESTS: value })).toThrow(
      /^WORKERS_SUBREQUESTS must be a whole number from 10 to 2147483647$/,
    );
  });
});

describe("settings from bindings", () => {
  it("hold every bound of core's settings", () => {
    expectBoundsHeld((raw) => settingsFromBindings({ LINKS, ...raw }));
  });

  // wrangler.toml's `LINK_MAX_PER_USER = 100` (unquoted) binds the number 100, as a dashboard
  // var of type JSON binds what it holds: not text, which every other runtime always hands over.
  it.each([
    ["LINK_MAX_PER_USER", 100],
    ["SERVER_TIMING", true],
    ["CORS_ORIGINS", ["https://app.example"]],
  ])("refuses %s bound as JSON (%j), naming it and not its value", (name, value) => {
    const read = () => settingsFromBindings({ LINKS, AUTH_SECRET: "s".repeat(32), [name]: value });
    expect(read).toThrow(SettingsError);
    expect(read).toThrow(new RegExp(`^${name} must be text: quote it in wrangler.toml's \\[vars\\]`));
    expect(read).not.toThrow(String(value));
  });

  it("refuses WORKERS_SUBREQUESTS bound as a number, naming it", () => {
    expect(() => invocationLimits({ LINKS, WORKERS_SUBREQUESTS: 10_000 })).toThrow(
      /^WORKERS_SUBREQUESTS must be text: quote it/,
    );
  });
});
