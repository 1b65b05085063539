import { describe, expect, it } from "vitest";
import type { Logger } from "../log.ts";
import { SettingsError } from "./error.ts";
import { misconfiguredResponse } from "./misconfigured.ts";

describe("misconfiguredResponse", () => {
  const reasons = [
    new SettingsError("DATABASE_URL", "was refused by the database at login"),
    new SettingsError("AUTH_SECRET", "must not be set with AUTH_JWKS"),
  ];

  it.each(reasons)("answers only the setting's name ($setting); the reason goes to the log line", async (error) => {
    const logged: unknown[][] = [];
    const logger: Logger = { log: (...line) => void logged.push(line) };
    const response = misconfiguredResponse(error, logger);
    expect(response.status).toBe(500);
    const text = await response.text();
    const reason = error.message.slice(error.setting.length + 1);
    expect(text).not.toContain(reason);
    expect(JSON.parse(text)).toMatchObject({ code: "misconfigured", setting: error.setting });
    expect(JSON.parse(text).detail).toContain(error.setting);
    expect(logged).toEqual([["error", "misconfigured", { setting: error.setting, error: error.message }]]);
  });

  it("rethrows anything that is not a setting's error", () => {
    const logger: Logger = { log: () => {} };
    expect(() => misconfiguredResponse(new Error("boom"), logger)).toThrow("boom");
  });
});
