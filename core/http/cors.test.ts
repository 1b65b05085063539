import { describe, expect, it } from "vitest";
import { parseSettings, SettingsError } from "../settings/settings.ts";

const AUTH_SECRET = "s".repeat(32);
const originsOf = (CORS_ORIGINS: string | undefined) => parseSettings({ AUTH_SECRET, CORS_ORIGINS }).corsOrigins;

describe("CORS_ORIGINS", () => {
  it("lists none by default", () => {
    expect(originsOf(undefined)).toEqual([]);
    expect(originsOf(" ")).toEqual([]);
  });

  it("reads exact origins, comma-separated, ports kept", () => {
    expect(originsOf(" https://app.example.com, http://127.0.0.1:5173 ")).toEqual([
      "https://app.example.com",
      "http://127.0.0.1:5173",
    ]);
  });

  it("refuses what is not an origin as a browser sends it, naming the setting", () => {
    for (const value of [
      "*",
      "app.example.com",
      "https://app.example.com/",
      "https://App.example.com",
      "ftp://x.test",
    ]) {
      expect(() => originsOf(value), value).toThrow(SettingsError);
      expect(() => originsOf(value), value).toThrow(/CORS_ORIGINS/);
    }
  });
});
