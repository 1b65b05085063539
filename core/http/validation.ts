import * as v from "valibot";
import { ProblemError } from "./problem.ts";

// NUL cannot be stored in Postgres text and lone surrogates do not survive UTF-8: either would
// fail in the database (a 5xx for bad input), so they are refused up front with every other
// control character.
const UNPRINTABLE = /[\p{Cc}\p{Cs}]/u;

/** A valibot check refusing control characters and lone surrogates in a text field. */
export const printable = (field: string) =>
  v.check((text: string) => !UNPRINTABLE.test(text), `${field} must not contain control characters`);

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

/** A failed check, as valibot and Standard Schema report it: a message and where. */
export interface Issue {
  message: string;
  path?: readonly unknown[];
}

/** `a.b.0`: the issue's path of keys, or "" where a key is not a name or an index. */
function fieldOf({ path = [] }: Issue): string {
  const keys = path.map((item) => (typeof item === "object" && item !== null && "key" in item ? item.key : item));
  return keys.every((key) => typeof key === "string" || typeof key === "number") ? keys.join(".") : "";
}

/** 422 `validation_failed`, listing each failing field (body, query or path) and why. */
export function validationFailed(issues: readonly Issue[]): ProblemError {
  const errors = issues.map((issue) => ({ field: fieldOf(issue), message: issue.message }));
  return new ProblemError(422, "validation_failed", "The request failed validation.", { errors });
}
