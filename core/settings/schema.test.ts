import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { SettingsError } from "./error.ts";
import {
  defaultsOf,
  namesOf,
  onOff,
  optional,
  parseGroup,
  settingsGroup,
  text,
  wholeNumber,
  withDefault,
} from "./schema.ts";

const GROUP = settingsGroup(
  {
    COUNT: withDefault(wholeNumber(1, 10), "3"),
    SWITCH: withDefault(onOff, "off"),
    NAME: optional(
      v.pipe(
        text,
        v.check((name) => name !== "x", "must not be x"),
      ),
    ),
  },
  (values) => ({ count: values.COUNT, on: values.SWITCH, name: values.NAME }),
);

/** The SettingsError `raw` gets, or a failure when it is taken. */
function refusal(raw: Record<string, string>): SettingsError {
  try {
    parseGroup(GROUP, raw);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error("taken");
}

describe("the rules every setting is read by", () => {
  it("take the default for an absent or blank setting, and trim what is given", () => {
    expect(parseGroup(GROUP, {})).toEqual({ count: 3, on: false, name: undefined });
    expect(parseGroup(GROUP, { COUNT: " ", SWITCH: "", NAME: "" })).toEqual({ count: 3, on: false, name: undefined });
    expect(parseGroup(GROUP, { COUNT: " 10 ", SWITCH: " on ", NAME: "y" })).toEqual({ count: 10, on: true, name: "y" });
  });

  it.each(["0", "11", "-1", "+5", "1.0", "1e1", "0x5", "five", "99999999999999999999"])(
    "a whole number is digits within its bounds: %j is refused in one line naming the setting",
    (value) => {
      const error = refusal({ COUNT: value });
      expect(error.setting).toBe("COUNT");
      expect(error.message).toBe("COUNT must be a whole number from 1 to 10");
    },
  );

  it.each(["yes", "true", "1", "ON "])("on/off is on or off only: %j is refused, naming the setting", (value) => {
    expect(refusal({ SWITCH: value }).message).toBe('SWITCH must be "on" or "off"');
  });

  it("names the first unusable setting only, and a setting's own check by its name", () => {
    expect(refusal({ COUNT: "0", SWITCH: "maybe" }).setting).toBe("COUNT");
    expect(refusal({ NAME: "x" }).message).toBe("NAME must not be x");
  });

  it("list a group's names and defaults, as written", () => {
    expect(namesOf(GROUP)).toEqual(["COUNT", "SWITCH", "NAME"]);
    expect(defaultsOf(GROUP)).toEqual({ COUNT: "3", SWITCH: "off", NAME: undefined });
  });
});
