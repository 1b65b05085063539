// A whole-number option is digits only, as --help states it: Number() alone would also take
// "0x10" (16), "1e3" (1000) or " 5" and run with a figure the user never wrote.
import { describe, expect, it } from "vitest";
import { wholeNumber } from "./cli.ts";

describe("wholeNumber", () => {
  const rounds = { min: 1, default: 3 };

  it("takes digits within the bounds, and the default when not given", () => {
    expect(wholeNumber("rounds", "12", rounds)).toBe(12);
    expect(wholeNumber("rounds", undefined, rounds)).toBe(3);
  });

  it.each(["0x10", "1e3", " 5", "5 ", "+5", "5.0", "0b11"])("refuses %j, naming the option", (value) => {
    expect(() => wholeNumber("rounds", value, rounds)).toThrow("--rounds must be a whole number ≥ 1");
  });
});
