import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { notBlank, numeralsUpTo, printable, TRIMMED_CLASS, validationFailed } from "./validation.ts";

/** The JSON Schema pattern an action publishes, read as ECMAScript reads it (JSON Schema's dialect). */
const publishedPattern = (action: object) =>
  new RegExp((action as { jsonSchema: { pattern: string } }).jsonSchema.pattern);

// Text full of what the checks are about: controls, C1 controls, every kind of whitespace trim removes.
const edgy = fc.constantFrom(
  "\u0000",
  "\u001f",
  "\u007f",
  "\u0085",
  "\u009f",
  "\u00a0",
  " ",
  "\t",
  "\n",
  "\ufeff",
  "\u2028",
  "\u3000",
  "a",
  "é",
  "😀",
  "\u200b",
);
const text = fc.array(fc.oneof(edgy, fc.string({ maxLength: 2 })), { maxLength: 8 }).map((parts) => parts.join(""));

describe("the patterns the OpenAPI document publishes for the project's own checks", () => {
  it("printable: refuses exactly the control characters (lone surrogates stay in the prose)", () => {
    const check = printable();
    const pattern = publishedPattern(check);
    const schema = v.pipe(v.string(), check);
    fc.assert(
      fc.property(text, (value) => {
        expect(pattern.test(value)).toBe(v.is(schema, value));
      }),
      { numRuns: 2000 },
    );
  });

  it("notBlank: a text with a character trim keeps, as the check sees it after the trim", () => {
    const check = notBlank(v.check((value: string) => value !== "", "blank"));
    const pattern = publishedPattern(check);
    const schema = v.pipe(v.string(), v.trim(), check);
    fc.assert(
      fc.property(text, (value) => {
        expect(pattern.test(value)).toBe(v.is(schema, value));
      }),
      { numRuns: 2000 },
    );
    // The class is what String.prototype.trim removes, code point by code point.
    for (let code = 0; code <= 0xffff; code++) {
      const char = String.fromCharCode(code);
      expect(new RegExp(`^[${TRIMMED_CLASS}]$`).test(char), `U+${code.toString(16)}`).toBe(char.trim() === "");
    }
  });

  it("numeralsUpTo: the numerals of 0 to max, without leading zeros", () => {
    const max = 2n ** 63n - 1n;
    const pattern = new RegExp(`^${numeralsUpTo(max)}$`);
    const near = fc.bigInt({ min: max - 10n ** 6n, max: max + 10n ** 6n });
    const any = fc.bigInt({ min: 0n, max: 2n ** 70n });
    fc.assert(
      fc.property(fc.oneof(near, any), (n) => {
        expect(pattern.test(n.toString())).toBe(n <= max);
      }),
      {
        numRuns: 2000,
      },
    );
    for (const numeral of ["0", "7", String(max)]) expect(pattern.test(numeral)).toBe(true);
    for (const numeral of ["", "00", "07", "-1", String(max + 1n), "1e3"]) expect(pattern.test(numeral)).toBe(false);
    expect(new RegExp(`^${numeralsUpTo(7n)}$`).test("8")).toBe(false);
  });
});

describe("validationFailed", () => {
  const errorsOf = (schema: v.GenericSchema, input: unknown) =>
    validationFailed(v.safeParse(schema, input).issues ?? []).extensions.errors;
  const body = v.strictObject({
    name: v.string(),
    count: v.optional(v.number()),
    open: v.optional(v.boolean()),
    meta: v.optional(v.object({})),
    tags: v.optional(v.array(v.string())),
    title: v.pipe(v.string(), v.maxLength(3, "title must be at most 3 characters")),
  });

  it("says valibot's own refusals as the contract says things, echoing no value", () => {
    expect(errorsOf(body, { title: "a", extra: "secret-value" })).toEqual([
      { field: "name", message: "is required" },
      { field: "extra", message: "is not a field of this request" },
    ]);
    expect(errorsOf(body, { name: 5, count: "5", open: "yes", meta: "x", tags: "x", title: "a" })).toEqual([
      { field: "name", message: "must be a string" },
      { field: "count", message: "must be a number" },
      { field: "open", message: "must be true or false" },
      { field: "meta", message: "must be a JSON object" },
      { field: "tags", message: "must be an array" },
    ]);
    expect(errorsOf(body, "a text")).toEqual([{ field: "", message: "must be a JSON object" }]);
  });

  it("keeps the project's own messages as they are", () => {
    expect(errorsOf(body, { name: "n", title: "long" })).toEqual([
      { field: "title", message: "title must be at most 3 characters" },
    ]);
  });
});
