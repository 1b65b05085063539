import { describe, expect, it } from "vitest";
import { expectBoundsHeld } from "../../test/support/setting-bounds.ts";
import type { WorkersKvNamespace } from "../kv/workers-kv.ts";
import { invocationLimits, settingsFromBindings } from "./settings.ts";

const LINKS = {} as WorkersKvNamespace;

describe("WORKERS_SUBREQUESTS", () => {
  it("defaults to the Free plan's 50 subrequests, two of them left to other fetches", () => {
    expect(invocationLimits({ LINKS })).toEqual({ kvOperations: 1_000, sqlStatements: 48 });
  });

  it("takes the Paid plan's figure, and any larger one", () => {
    expect(invocationLimits({ LINKS, WORKERS_SUBREQUESTS: " 10000 " })).toEqual({
      kvOperations: 1_000,
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
});
