// The one way settings are read, on every runtime: each capability declares its settings as a
// group of valibot schemas, one per name (settingsGroup); the root composes the groups
// (settings.ts); parseGroup reads raw strings against a group and throws a SettingsError naming
// the first unusable setting, in one line, never its value. An absent or blank setting takes the
// default its schema declares, which the README's table is checked against.
import * as v from "valibot";
import { SettingsError } from "./error.ts";

export type RawSettings = Record<string, string | undefined>;

/** The largest number Postgres' int holds: every setting that reaches SQL (make_interval, a cap) stays within it. */
export const MAX_INT = 2_147_483_647;
/** The longest timer JavaScript runtimes keep (2^31 - 1 ms): an interval that drives one stays within it. */
export const MAX_TIMER_SECONDS = Math.floor(MAX_INT / 1000);

/** A whole number from `min` to `max`, written in digits only (no sign, point or exponent). */
export function wholeNumber(min: number, max: number, what = "a whole number") {
  const message = `must be ${what} from ${min} to ${max}`;
  return v.pipe(
    v.string(),
    v.trim(),
    v.regex(/^[0-9]+$/, message),
    v.transform(Number),
    v.minValue(min, message),
    v.maxValue(max, message),
  );
}

/** A lifetime or interval in whole seconds, from `min` to `max`. */
export const seconds = (min: number, max: number) => wholeNumber(min, max, "a whole number of seconds");

/** `on` or `off`, nothing else. */
export const onOff = v.pipe(
  v.string(),
  v.trim(),
  v.picklist(["on", "off"], 'must be "on" or "off"'),
  v.transform((value) => value === "on"),
);

/** Any text, as given. */
export const text = v.string();

/**
 * A key given as text: at least `minBytes` bytes of UTF-8. Its bytes are the key, so nothing is
 * trimmed; a space or line break around it (a file's last newline, kept by `--stdin < file`) is
 * refused, as it would make another key than the one tokens are signed with.
 */
export const keyOfAtLeast = (minBytes: number) =>
  v.pipe(
    text,
    v.check((key) => key === key.trim(), "must be the key alone, without a space or line break around it"),
    v.check((key) => new TextEncoder().encode(key).length >= minBytes, `must be at least ${minBytes} bytes`),
  );

/**
 * Entries separated by commas, each read by `read` without the spaces around it (undefined: not
 * one). Taken as written: an empty entry (`a,,b`, a trailing comma) is refused, not dropped, as a
 * number outside its bounds is; so is an entry read twice, most likely a typo for another one.
 */
export function commaList<Entry extends string>(read: (entry: string) => Entry | undefined, what: string) {
  return v.pipe(
    text,
    v.transform((list) => list.split(",").map((entry) => entry.trim())),
    v.transform((entries) => entries.map((entry) => (entry === "" ? undefined : read(entry)))),
    v.check((entries) => entries.every((entry) => entry !== undefined), `must be ${what}, comma-separated`),
    v.check((entries) => new Set(entries).size === entries.length, `must be ${what}, each named once`),
    v.transform((entries) => entries as Entry[]),
  );
}

/** `schema` for a setting that may be left unset: then undefined. */
export const optional = <Schema extends v.GenericSchema<string, unknown>>(schema: Schema) => v.optional(schema);

/** `schema` for a setting that takes `fallback` (as it would be written) when left unset. */
export const withDefault = <Schema extends v.GenericSchema<string, unknown>>(schema: Schema, fallback: string) =>
  v.optional(schema, fallback);

/** A capability's settings: one schema per name, and what it builds of their values. */
export function settingsGroup<const Entries extends v.ObjectEntries, Output>(
  entries: Entries,
  build: (values: v.InferOutput<v.ObjectSchema<Entries, undefined>>) => Output,
) {
  return v.pipe(v.object(entries), v.transform(build));
}

/** What namesOf and defaultsOf read of a group. */
interface Group {
  pipe: readonly [v.ObjectSchema<v.ObjectEntries, undefined>, ...unknown[]];
}

/** The setting names of a group. */
export type NamesOf<G extends Group> = G extends Group ? keyof G["pipe"][0]["entries"] & string : never;

/** The setting names of `group`. */
export const namesOf = <G extends Group>(group: G) => Object.keys(group.pipe[0].entries) as NamesOf<G>[];

/** Each setting of `group` with the default it takes when unset (undefined: none), as it would be written. */
export function defaultsOf(group: Group): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(group.pipe[0].entries).map(([name, schema]) => [name, v.getDefault(schema) as string | undefined]),
  );
}

/**
 * `raw` read against `schema`: a blank value counts as unset; the first unusable setting throws
 * a SettingsError naming it. A group's own checks across its settings throw theirs.
 */
export function parseGroup<Schema extends v.GenericSchema>(schema: Schema, raw: RawSettings): v.InferOutput<Schema> {
  const given = Object.fromEntries(
    Object.entries(raw).filter(([, value]) => value !== undefined && value.trim() !== ""),
  );
  const result = v.safeParse(schema, given, { abortEarly: true });
  if (result.success) return result.output;
  const [issue] = result.issues;
  throw new SettingsError(v.getDotPath(issue) ?? "settings", issue.message);
}
