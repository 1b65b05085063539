import * as v from "valibot";
import { ProblemError } from "./problem.ts";

// NUL cannot be stored in Postgres text and lone surrogates do not survive UTF-8: either would
// fail in the database (a 5xx for bad input), so they are refused up front, NUL with every other
// control character. Each has its own message: a lone surrogate is no control character.
const CONTROL = /\p{Cc}/u;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A valibot action with what it means in JSON Schema, which the OpenAPI document publishes
 * (core/openapi/json-schema.ts) where it would otherwise leave the check to the prose.
 */
export const publishedAs = <Action extends object>(jsonSchema: Record<string, unknown>, action: Action) =>
  Object.assign(action, { jsonSchema });

/** A valibot check refusing control characters and lone surrogates in a text field (its `field` names it). */
export const printable = () =>
  // A lone surrogate cannot be written in a pattern that also reads pairs: that part stays prose.
  publishedAs(
    { pattern: "^[^\\u0000-\\u001f\\u007f-\\u009f]*$" },
    v.rawCheck<string>(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      if (CONTROL.test(dataset.value)) addIssue({ message: "must not contain control characters" });
      if (LONE_SURROGATE.test(dataset.value)) addIssue({ message: "must not contain lone surrogates" });
    }),
  );

// What String.prototype.trim removes (ECMAScript's WhiteSpace and LineTerminator), spelt out for
// patterns: `\\s` differs between regex engines (Python's takes \\x1c-\\x1f too).
export const TRIMMED_CLASS =
  "\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";

/** A check, after a trim, that something is left: published as "one character trim keeps". */
export const notBlank = <Action extends object>(action: Action) =>
  publishedAs({ minLength: 1, pattern: `[^${TRIMMED_CLASS}]` }, action);

/**
 * A pattern of the decimal numerals from 0 to `max`, without leading zeros: a bound JSON Schema
 * can only state on a number, for numbers that travel as text (a cursor's id).
 */
export function numeralsUpTo(max: bigint): string {
  const digits = max.toString();
  const shorter = digits.length > 1 ? [`[1-9][0-9]{0,${digits.length - 2}}`] : [];
  // As long as `max`: its first i digits, then a smaller one, then any.
  const below = [...digits].flatMap((digit, i) => {
    const low = i === 0 ? 1 : 0;
    const high = Number(digit) - 1;
    return high < low ? [] : [`${digits.slice(0, i)}[${low}-${high}][0-9]{${digits.length - i - 1}}`];
  });
  return `(?:0|${[...shorter, ...below, digits].join("|")})`;
}

/**
 * A request body that must be a JSON object: valibot's object schemas take arrays too, and `[]`
 * has no key for them to refuse, so an array would be judged as an empty object.
 */
export const jsonObject = <Schema extends v.GenericSchema>(schema: Schema, message = "must be a JSON object") =>
  v.pipe(
    v.unknown(),
    v.check((body) => !Array.isArray(body), message),
    schema,
  );

/** Length in code points: what "characters" means to users, and what Postgres' char_length and JSON Schema's maxLength count. */
const codePointLength = (text: string) => {
  let length = 0;
  for (const _ of text) length++;
  return length;
};

/**
 * A valibot check that a text has at most `max` code points (valibot's own maxLength counts UTF-16
 * units, so an emoji would count twice). `maxCodePoints` is kept on the action for the OpenAPI document.
 */
export const maxCodePoints = (max: number, message = `must be at most ${max} characters`) =>
  Object.assign(
    // A code point is one or two UTF-16 units: a text of at most `max` units needs no counting
    // (counting walks the string, which on an interpreting runtime such as Compute is costly).
    v.check((text: string) => text.length <= max || codePointLength(text) <= max, message),
    { maxCodePoints: max },
  );

/** A failed check, as valibot and Standard Schema report it: a message and where (valibot: and what it expected). */
export interface Issue {
  message: string;
  path?: readonly unknown[];
  expected?: string | null;
  received?: string;
}

/** `a.b.0`: the issue's path of keys, or "" where a key is not a name or an index. */
function fieldOf({ path = [] }: Issue): string {
  const keys = path.map((item) => (typeof item === "object" && item !== null && "key" in item ? item.key : item));
  return keys.every((key) => typeof key === "string" || typeof key === "number") ? keys.join(".") : "";
}

/** 422 `validation_failed`, listing each failing field (body, query or path) and why. */
export function validationFailed(issues: readonly Issue[]): ProblemError {
  const errors = issues.map((issue) => ({ field: fieldOf(issue), message: plainMessage(issue) }));
  return new ProblemError(422, "validation_failed", "The request failed validation.", { errors });
}

// valibot's own wording of a schema's refusal, `Invalid key: Expected never but received "x"`,
// names its internals and echoes the value; the project's checks carry their own messages.
const VALIBOT_DEFAULT = /^Invalid [\w ]+: Expected /;
const WHAT_IS_EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  boolean: "true or false",
  Object: "a JSON object",
  Array: "an array",
};

/** The issue's message, valibot's defaults said as the contract says things. */
function plainMessage(issue: Issue): string {
  const { message, expected, received } = issue;
  if (!VALIBOT_DEFAULT.test(message) || typeof expected !== "string") return message;
  // A strict object's unknown key, then a key it requires that is missing.
  if (expected === "never") return "is not a field of this request";
  if (received === "undefined" && expected.startsWith('"')) return "is required";
  return `must be ${WHAT_IS_EXPECTED[expected] ?? expected}`;
}
