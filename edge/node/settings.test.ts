import { describe, expect, it } from "vitest";
import { parseSettings, SettingsError } from "../../core/settings/settings.ts";
import { expectBoundsHeld } from "../../test/support/setting-bounds.ts";
import { DEFAULT_SERVER_LIMITS } from "./server.ts";
import { readNodeSettings } from "./settings.ts";

describe("the Node server's settings", () => {
  it("default to the server's cap and no /docs, and take a whole number and on", () => {
    expect(readNodeSettings({})).toEqual({ maxConnections: DEFAULT_SERVER_LIMITS.maxConnections, apiDocs: false });
    expect(readNodeSettings({ MAX_CONNECTIONS: " 250 ", API_DOCS: "on" })).toEqual({
      maxConnections: 250,
      apiDocs: true,
    });
    expect(readNodeSettings({ MAX_CONNECTIONS: "2147483647" }).maxConnections).toBe(2_147_483_647);
  });

  it.each(["0", "-1", "1.5", "many", "1e3", "2147483648"])(
    "refuses MAX_CONNECTIONS=%s, naming it and not the value",
    (value) => {
      const read = () => readNodeSettings({ MAX_CONNECTIONS: value });
      expect(read).toThrow(SettingsError);
      expect(read).toThrow(/^MAX_CONNECTIONS must be a whole number from 1 to 2147483647$/);
    },
  );

  it.each(["yes", "true", "1"])("refuses API_DOCS=%s, naming it", (value) => {
    expect(() => readNodeSettings({ API_DOCS: value })).toThrow(/^API_DOCS must be "on" or "off"$/);
  });

  it("holds every bound of core's settings, read from the environment as the service reads it", () => {
    expectBoundsHeld(parseSettings);
  });
});
