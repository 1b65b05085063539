// fast-check generators of hostile values for the requests of arbitraries.ts: text of every
// kind, JSON values of any type, bodies that are JSON or almost, numbers and cursors at the edges
// of what JSON and Postgres hold, and CSV imports. `CURRENT_OPAQUE` is replaced at send time by
// the seeded asset's current ETag, so a CSV row's compare-and-set is reached, not only refused.
import fc from "fast-check";

export const CURRENT_OPAQUE = "<current-opaque>";
export const SEEDED_ASSET = "seed";

const NASTY = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\uD800",
  "x\uDFFF",
  "\u202Eevil",
  "\uFEFF",
  "\u200B",
  "\r\n",
  "\t",
  "\u0085",
  "'; DROP TABLE assets; --",
  '" OR 1=1 --',
  "$1",
  "$1::text",
  "%27",
  "%00",
  "..",
  "../..",
  "\\",
  "\\x00",
  "null",
  "NaN",
  "-0",
  "1e999",
  '{"a":1}',
  "{1,2}",
  "NULL",
  "<script>",
  "😀".repeat(60),
  "a".repeat(200),
  "a".repeat(201),
  "é".repeat(257),
  "Ⅻ",
  "\u212A",
  // Huge: far past every field's limit, and past what a query or path segment usually holds.
  "a".repeat(20_000),
  "€".repeat(5_000),
  "😀".repeat(3_000),
];

/** Text of every kind: any code point (NUL, controls, lone surrogates), graphemes, near the limits. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ unit: "binary", maxLength: 24 }),
  fc.string({ unit: "binary-ascii", maxLength: 24 }),
  fc.string({ unit: "grapheme", maxLength: 24 }),
  fc.string({ unit: fc.constantFrom("\uD800", "\uDC00", "a", "\u0000", "\u0301"), maxLength: 8 }),
  fc.string({ unit: "grapheme-ascii", minLength: 195, maxLength: 260 }),
);

/** JSON values of any type, huge and tiny numbers included. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  fc.constantFrom(0, -1, 1.5, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER + 2, true, false, null),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.array(hostileText, { maxLength: 3 }),
  fc.dictionary(hostileText, hostileText, { maxKeys: 3 }),
);

const RAW_BODIES = [
  "",
  " ",
  "{",
  "}",
  "[",
  "[1,",
  "nul",
  '{"name":}',
  "{'name':'x'}",
  '{"a":1}{"b":2}',
  "\u0000",
  "123456789012345678901234567890",
  "1e999",
  "-",
  '"just a string"',
  "[]",
  "{}",
  "null",
  "true",
  "[".repeat(3000) + "]".repeat(3000),
  `{"name":"${"x".repeat(70_000)}"}`,
  "\uFEFF{}",
];

/** Usually plausible text, often hostile: so requests get past the first check and reach the rest. */
const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }) },
  { weight: 4, arbitrary: hostileValue },
);

/** A body: JSON of a record with the route's fields (values of any type), any JSON, or not JSON. */
export function hostileBody(fields: readonly string[]): fc.Arbitrary<string> {
  const keys = fc.constantFrom(...fields, "extra", "__proto__", "constructor");
  const allFields = fc.record(Object.fromEntries(fields.map((field) => [field, fieldValue])));
  const someKeys = fc.dictionary(keys, hostileValue, { maxKeys: fields.length + 1 });
  return fc.oneof(
    { weight: fields.length === 0 ? 0 : 6, arbitrary: allFields.map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: someKeys.map((value) => JSON.stringify(value)) },
    fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
    fc.constantFrom(...RAW_BODIES),
    fc.string({ unit: "binary", maxLength: 40 }),
  );
}

/** Numbers at the edges of what JSON (2^53) and Postgres' bigint (2^63) hold, and past them. */
const EDGE_NUMBERS = [
  "9007199254740991",
  "9007199254740992", // 2^53
  "9223372036854775807", // 2^63 - 1: Postgres' largest bigint
  "9223372036854775808", // 2^63
  "9223372036854775809",
  "18446744073709551616", // 2^64
];

export const numberText = fc.oneof(
  fc.constantFrom(
    "1",
    "2",
    "0",
    "-1",
    "1.5",
    "1e3",
    "007",
    "0x10",
    ...EDGE_NUMBERS,
    "9007199254740993",
    "99999999999999999999",
    "9".repeat(400),
    "",
    "１", // a full-width digit
    " 1",
    "+1",
  ),
  fc.bigInt({ min: -10n, max: 10n ** 20n }).map(String),
  hostileText,
);

export const validAssetId = fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/);
export const provider = fc.constantFrom(
  "github",
  "GitHub",
  "gitlab",
  "x",
  "a".repeat(64),
  "a".repeat(65),
  "-gh",
  "g h",
  "GITHUB",
);

/** Every cursor shape and edge, for every query parameter of every route (not left to chance). */
export const EDGE_QUERY_VALUES = [
  ...EDGE_NUMBERS,
  ...EDGE_NUMBERS.map((number) => `db:${number}`),
  "",
  "kv:",
  `kv:${"x".repeat(2_049)}`,
  "a".repeat(20_000),
  "é",
  "😀",
  "１",
];

/**
 * `after` of every list: a number (documents), a provider (the caller's links), or a resync's
 * `kv:`/`db:` position, each also past what its column holds.
 */
export const cursorText = fc.oneof(
  numberText,
  provider,
  fc.oneof(numberText, fc.constantFrom("00", "-0", "1 ")).map((number) => `db:${number}`),
  fc.oneof(hostileText, fc.constantFrom("", "x".repeat(2_049), "é".repeat(2_048))).map((text) => `kv:${text}`),
  fc.constantFrom("db:", "kv", "DB:1", "db:1\n", "kv:\u0000"),
);

/** A CSV field, quoted when it must be (RFC 4180). */
export const csvField = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

export const csvBody = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.constant(SEEDED_ASSET), validAssetId, hostileText),
        hostileText,
        hostileText,
        fc.oneof(fc.constant(CURRENT_OPAQUE), hostileText),
      ),
      { maxLength: 4 },
    )
    .map((rows) => ["id,name,material,source_etag", ...rows.map((row) => row.map(csvField).join(","))].join("\n")),
  fc.constantFrom(
    "",
    "id,name\n",
    'id,name,material,source_etag\n"unterminated',
    "a,b,c,d\n1,2,3,4",
    `id,name,material,source_etag\n${"x,a,b,c\n".repeat(1001)}`,
  ),
  fc.string({ unit: "binary", maxLength: 60 }),
);
