import { describe, expect, it } from "vitest";
import { readNodeSettings } from "../../edge/node/settings.ts";
import { withStartDefaults } from "./start-defaults.ts";

describe("the settings npm start hands its runtimes", () => {
  it("turn on /docs and Server-Timing unless turned off, a blank one unset as every runtime reads it", () => {
    for (const blank of [undefined, "", " "]) {
      const env = withStartDefaults({ API_DOCS: blank, SERVER_TIMING: blank });
      expect(env).toMatchObject({ API_DOCS: "on", SERVER_TIMING: "on" });
      expect(readNodeSettings(env).apiDocs).toBe(true);
    }
    const off = withStartDefaults({ API_DOCS: " off ", SERVER_TIMING: "off" });
    expect(off).toMatchObject({ API_DOCS: " off ", SERVER_TIMING: "off" });
    expect(readNodeSettings(off).apiDocs).toBe(false);
  });
});
