// Keyset pagination, the same on every list: `?after=<cursor>&limit=<1..100>` answers
// `{ items, next }`, where `next` is the `after` of the following page, or null after the last.
import * as v from "valibot";
import type { Row } from "../ports/sql.ts";
import { publishedAs } from "./validation.ts";

export const DEFAULT_PAGE_SIZE = 20;
/** Keeps every page far below what one answer may hold (Neon's HTTP API answers at most 10 MB). */
export const MAX_PAGE_SIZE = 100;

const INT32_MAX = 2 ** 31 - 1;

/**
 * An integer's upper bound. Past int32 the document also says `int64`: a client generated from it
 * (Java, C#, Go) otherwise holds an `integer` in 32 bits, and fails past 2^31 - 1.
 */
export const atMost = (max: number) =>
  publishedAs(max > INT32_MAX ? { format: "int64" } : {}, v.maxValue<number, number>(max));

/**
 * Query values are text: canonical decimal integers only, within what a JSON number holds exactly.
 * What it reads as (`v.number()` on) is what the OpenAPI document publishes: an integer.
 */
export const integerText = (min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^(0|[1-9][0-9]*)$/, "must be a decimal integer"),
    // Past 16 digits a numeral is beyond every bound (at most 2^53 - 1), and Number would round it:
    // refused for its size, as a smaller one past the bound is.
    v.check((numeral: string) => numeral.length <= 16, `must be <=${max}`),
    v.transform(Number),
    v.number(),
    v.integer(),
    v.minValue(min),
    atMost(max),
  );

export const pageLimit = v.optional(integerText(1, MAX_PAGE_SIZE), String(DEFAULT_PAGE_SIZE));

export interface Page<T, Cursor> {
  items: T[];
  next: Cursor | null;
}

/** A page read with `limit + 1` rows: the extra row only tells that another page follows, without a count. */
export function keysetPage<T, Cursor>(
  rows: Row[],
  limit: number,
  toItem: (row: Row) => T,
  cursorOf: (item: T) => Cursor,
): Page<T, Cursor> {
  const items = rows.slice(0, limit).map(toItem);
  const last = items.at(-1);
  return { items, next: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}
