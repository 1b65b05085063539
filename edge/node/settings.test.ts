import { describe, expect, it } from "vitest";
import { SettingsError } from "../../core/settings/settings.ts";
import { DEFAULT_SERVER_LIMITS } from "./server.ts";
import { readServerLimits } from "./settings.ts";

describe("MAX_CONNECTIONS", () => {
  it("defaults to the server's cap, and takes a whole number", () => {
    expect(readServerLimits({})).toEqual({ maxConnections: DEFAULT_SERVER_LIMITS.maxConnections });
    expect(readServerLimits({ MAX_CONNECTIONS: " 250 " })).toEqual({ maxConnections: 250 });
  });

  it.each(["0", "-1", "1.5", "many", "1e3"])("refuses %s, naming the setting and not the value", (value) => {
    const read = () => readServerLimits({ MAX_CONNECTIONS: value });
    expect(read).toThrow(SettingsError);
    expect(read).toThrow(/^MAX_CONNECTIONS must be a whole number, at least 1$/);
  });
});
