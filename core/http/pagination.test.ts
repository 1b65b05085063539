import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { integerText } from "./pagination.ts";
import { validationFailed } from "./validation.ts";

/** What a 422 says of `text` read with `schema`, or its value when it passes. */
function read(schema: v.GenericSchema, text: string): unknown {
  const result = v.safeParse(schema, text);
  return result.success ? result.output : validationFailed(result.issues).extensions.errors;
}

describe("integerText", () => {
  it("reads canonical decimal integers within its bounds", () => {
    for (const text of ["1", "42", "100"]) expect(read(integerText(1, 100), text)).toBe(Number(text));
    const max = String(Number.MAX_SAFE_INTEGER);
    expect(read(integerText(0, Number.MAX_SAFE_INTEGER), max)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("refuses what is no decimal integer as such", () => {
    for (const text of ["", "abc", "-1", "1.5", "1e2", "007", " 1", "0x10"]) {
      expect(read(integerText(0, 100), text)).toEqual([{ field: "", message: "must be a decimal integer" }]);
    }
  });

  it("refuses a decimal integer past its bound for its size, however many digits it has", () => {
    const tooLarge = [{ field: "", message: "must be <=100" }];
    for (const text of ["101", "10000000000000000", "1".repeat(40)])
      expect(read(integerText(0, 100), text)).toEqual(tooLarge);
    // 2^53 + 1 rounds to 2^53 as a number: refused still, never read as a number it is not.
    const safe = integerText(0, Number.MAX_SAFE_INTEGER);
    const bound = [{ field: "", message: `must be <=${Number.MAX_SAFE_INTEGER}` }];
    for (const text of ["9007199254740993", "99999999999999999999"]) expect(read(safe, text)).toEqual(bound);
  });
});
