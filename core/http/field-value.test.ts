import { describe, expect, it } from "vitest";
import { fieldValue, withoutSpacesAround } from "./field-value.ts";

// A Headers as workerd hands it over: the spaces and tabs around each value kept (a Headers made
// here drops them, as the Fetch standard says).
const sent = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });

describe("fieldValue", () => {
  it("is undefined when the header is absent", () => {
    expect(fieldValue(sent({}), "origin")).toBeUndefined();
  });

  it.each([
    ["a trailing space", "https://app.example ", "https://app.example"],
    ["a trailing tab", "Bearer t\t", "Bearer t"],
    ["spaces and tabs before and after", " \t k-1 \t", "k-1"],
    ["only spaces and tabs", " \t ", ""],
    ["spaces inside", "a b\tc", "a b\tc"],
  ])("leaves out the spaces and tabs around a value: %s", (_why, value, read) => {
    expect(fieldValue(sent({ h: value }), "h")).toBe(read);
  });

  it("keeps what RFC 9110 does not count as optional whitespace (a no-break space, U+00A0)", () => {
    expect(withoutSpacesAround("\u00a0k\u00a0")).toBe("\u00a0k\u00a0");
  });
});
