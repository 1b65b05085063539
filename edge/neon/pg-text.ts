// Values to and from Postgres text, converted as the Neon driver (@neondatabase/serverless 1.2.0)
// converts them: parameters as its bundled pg's `prepareValue`, results by type OID as its bundled
// pg-types 2.2.0 text parsers, over the same postgres-array and postgres-date it bundles.
/// <reference path="./postgres-date.d.ts" />
import { parse as parseArray } from "postgres-array";
import parseDate from "postgres-date";

/** A parameter as the driver sends it: text, or null for SQL NULL. */
export function toPgParam(value: unknown): string | null {
  const prepared = prepare(value);
  return prepared instanceof Uint8Array ? `\\x${hex(prepared)}` : prepared;
}

function prepare(value: unknown, seen: unknown[] = []): string | Uint8Array | null {
  if (value === null || value === undefined) return null;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof Date) return dateToString(value);
  if (Array.isArray(value)) return arrayLiteral(value);
  if (typeof value === "object") return prepareObject(value, seen);
  return String(value);
}

/** An object that knows its Postgres form (`toPostgres`), else its JSON. */
function prepareObject(value: object, seen: unknown[]): string | Uint8Array | null {
  const toPostgres = (value as { toPostgres?: unknown }).toPostgres;
  if (typeof toPostgres !== "function") return JSON.stringify(value);
  if (seen.includes(value)) throw new Error(`circular reference detected while preparing "${value}" for query`);
  seen.push(value);
  return prepare(toPostgres.call(value, prepare), seen);
}

function arrayLiteral(values: readonly unknown[]): string {
  const element = (value: unknown): string => {
    if (value === null || value === undefined) return "NULL";
    if (Array.isArray(value)) return arrayLiteral(value);
    const prepared = prepare(value);
    if (prepared instanceof Uint8Array) return `\\\\x${hex(prepared)}`;
    return `"${String(prepared).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  };
  return `{${values.map(element).join(",")}}`;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");

const pad = (value: number, length: number) => String(value).padStart(length, "0");

/** Local time with its offset, years before 1 as BC: pg's `dateToString`. */
function dateToString(date: Date): string {
  let offset = -date.getTimezoneOffset();
  let year = date.getFullYear();
  const bc = year < 1;
  if (bc) year = Math.abs(year) + 1;
  let text = `${pad(year, 4)}-${pad(date.getMonth() + 1, 2)}-${pad(date.getDate(), 2)}T${pad(date.getHours(), 2)}:${pad(date.getMinutes(), 2)}:${pad(date.getSeconds(), 2)}.${pad(date.getMilliseconds(), 3)}`;
  text += offset < 0 ? "-" : "+";
  offset = Math.abs(offset);
  text += `${pad(Math.floor(offset / 60), 2)}:${pad(offset % 60, 2)}`;
  return bc ? `${text} BC` : text;
}

type Parser = (text: string) => unknown;

const parseBool: Parser = (text) =>
  text === "TRUE" || text === "t" || text === "true" || text === "y" || text === "yes" || text === "on" || text === "1";
const parseInteger: Parser = (text) => parseInt(text, 10);
const same: Parser = (text) => text;

/** Parsers by type OID: bool, int2, int4, oid, float4, float8, json, jsonb, date, timestamp, timestamptz. */
const SCALARS: Record<number, Parser> = {
  16: parseBool,
  21: parseInteger,
  23: parseInteger,
  26: parseInteger,
  700: parseFloat,
  701: parseFloat,
  114: JSON.parse,
  3802: JSON.parse,
  1082: parseDate,
  1114: parseDate,
  1184: parseDate,
};

/** Element parsers by array type OID; the text-like ones (char, varchar, text, inet, uuid…) stay text. */
const ARRAYS: Record<number, Parser> = {
  1000: parseBool,
  1005: parseInteger,
  1007: parseInteger,
  1028: parseInteger,
  1016: (text) => text.trim(),
  1021: parseFloat,
  1022: parseFloat,
  1231: parseFloat,
  1115: parseDate,
  1182: parseDate,
  1185: parseDate,
  199: JSON.parse,
  3807: JSON.parse,
  651: same,
  791: same,
  1008: same,
  1009: same,
  1014: same,
  1015: same,
  1040: same,
  1041: same,
  1183: same,
  1270: same,
  2951: same,
  3907: same,
};

/**
 * A column's value from its Postgres text, by type OID. Every other type stays text, as the
 * driver leaves it (int8 and numeric among them: a JS number would lose digits), except bytea,
 * interval, point and circle (and their arrays), which the driver turns into Buffer and object
 * forms and which arrive here as text: no statement of this project returns them.
 */
export function fromPgText(text: string, dataTypeId: number): unknown {
  const scalar = SCALARS[dataTypeId];
  if (scalar) return scalar(text);
  const element = ARRAYS[dataTypeId];
  return element ? parseArray(text, element) : text;
}
