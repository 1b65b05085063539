import * as v from "valibot";

// NUL cannot be stored in Postgres text and lone surrogates do not survive UTF-8: either would
// fail in the database (a 5xx for bad input), so they are refused up front with every other
// control character.
const UNPRINTABLE = /[\p{Cc}\p{Cs}]/u;

/** A valibot check refusing control characters and lone surrogates in a text field. */
export const printable = (field: string) =>
  v.check((text: string) => !UNPRINTABLE.test(text), `${field} must not contain control characters`);
