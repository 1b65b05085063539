import * as v from "valibot";

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
