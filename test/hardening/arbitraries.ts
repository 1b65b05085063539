// fast-check generators of hostile requests: every route of the contract, with paths, headers,
// query strings and bodies that are random, malformed, oversized, oddly typed, full of unicode
// and control characters, or almost right. `CURRENT_ETAG` (and `CURRENT_OPAQUE`, in CSV) are
// replaced at send time by the seeded asset's current ETag, so compare-and-set writes are reached,
// not only refused.
import fc from "fast-check";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { bodyFieldsOf, RFC_9110_METHODS, type Route } from "../support/routes.ts";

export const CURRENT_ETAG = "<current-etag>";
export const CURRENT_OPAQUE = "<current-opaque>";
export const SEEDED_ASSET = "seed";

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Omitted for GET and HEAD, which cannot carry one. */
  body?: string;
  /** The token's claims, or a raw Authorization value, or nothing. */
  auth: { claims: TokenClaims } | { raw: string } | { none: true };
}

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
const hostileText: fc.Arbitrary<string> = fc.oneof(
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
function hostileBody(fields: readonly string[]): fc.Arbitrary<string> {
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

/** Characters a Headers value may hold (no CR, LF or NUL): visible ASCII, space, tab, Latin-1. */
const headerText = (maxLength = 40) =>
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0xff }).map((code) => String.fromCharCode(code === 0x7f ? 0x09 : code)),
    maxLength,
  });

const etagHeader = fc.oneof(
  fc.constantFrom(
    CURRENT_ETAG,
    `W/${CURRENT_ETAG}`,
    `"stale", ${CURRENT_ETAG}`,
    "*",
    " * ",
    '"x"',
    'W/"x"',
    '"a", "b"',
    '"unterminated',
    "",
    ",",
    ", ,",
    "xyz",
    '"a"b',
    '"\u00ff"',
    "**",
  ),
  headerText(),
);

const anyContentType = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/merge-patch+json",
  "text/csv",
  "text/plain",
  "",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json;;;",
);

/** A path segment as a client could send it: encoded text, or raw broken escapes. */
const segment = (valid: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 3, arbitrary: valid.map(encodeSegment) },
    { weight: 3, arbitrary: hostileText.map(encodeSegment) },
    fc.constantFrom("%", "%zz", "%C0%80", "%FF", "%00", "%2F", "a%2Fb", "%E2%82", ".", "..", "%2e%2e", "%20"),
  );

/** Percent-encodes text; lone surrogates (which encodeURIComponent refuses) go as broken UTF-8. */
function encodeSegment(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return `${encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, ""))}%ED%A0%80`;
  }
}

/** `?a=…&b=…` with each parameter present or not; "" when none is. */
const query = (parameters: Record<string, fc.Arbitrary<string>>) =>
  fc
    .tuple(
      ...Object.entries(parameters).map(([name, values]) =>
        fc.option(
          values.map((value) => `${name}=${encodeSegment(value)}`),
          { nil: undefined },
        ),
      ),
    )
    .map((pairs) => {
      const present = pairs.filter((pair) => pair !== undefined);
      return present.length === 0 ? "" : `?${present.join("&")}`;
    });

/** Numbers at the edges of what JSON (2^53) and Postgres' bigint (2^63) hold, and past them. */
export const EDGE_NUMBERS = [
  "9007199254740991",
  "9007199254740992", // 2^53
  "9223372036854775807", // 2^63 - 1: Postgres' largest bigint
  "9223372036854775808", // 2^63
  "9223372036854775809",
  "18446744073709551616", // 2^64
];

const numberText = fc.oneof(
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

const validAssetId = fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/);
const provider = fc.constantFrom(
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
const cursorText = fc.oneof(
  numberText,
  provider,
  fc.oneof(numberText, fc.constantFrom("00", "-0", "1 ")).map((number) => `db:${number}`),
  fc.oneof(hostileText, fc.constantFrom("", "x".repeat(2_049), "é".repeat(2_048))).map((text) => `kv:${text}`),
  fc.constantFrom("db:", "kv", "DB:1", "db:1\n", "kv:\u0000"),
);

const auth: fc.Arbitrary<HostileRequest["auth"]> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .constantFrom<TokenClaims>(
        { sub: "alice", tid: "acme" },
        { sub: "bob", tid: "acme" },
        { sub: "ops", tid: "acme", role: "admin" },
        { sub: "svc", tid: "acme", role: "service" },
        { sub: "eve", tid: "rival" },
      )
      .map((claims) => ({ claims })),
  },
  fc.constantFrom<HostileRequest["auth"]>({ none: true }, { raw: "Bearer x.y.z" }, { raw: "Basic YTpi" }),
  headerText().map((raw) => ({ raw })),
);

/** Headers a route reads, mostly well-formed (the route's media type, ETags) and often not. */
const headers = (mediaType: string) =>
  fc.record(
    {
      "content-type": fc.oneof({ weight: 4, arbitrary: fc.constant(mediaType) }, anyContentType, headerText()),
      "if-match": etagHeader,
      "if-none-match": etagHeader,
      "idempotency-key": fc.oneof(
        fc.constantFrom("key-1", "key-2", "k".repeat(255), "k".repeat(256), " ", "a b", "é", "", "k".repeat(20_000)),
        headerText(300),
      ),
      "x-request-id": headerText(),
      "content-length": fc.constantFrom("0", "1", "999999999", "-1", "abc"),
      accept: fc.constantFrom("application/json", "text/html", "*/*"),
    },
    { requiredKeys: ["content-type"] },
  );

interface RouteShape {
  methods: readonly string[];
  path: fc.Arbitrary<string>;
  fields: readonly string[];
  mediaType?: string;
}

function requests({ methods, path, fields, mediaType = "application/json" }: RouteShape): fc.Arbitrary<HostileRequest> {
  const someMethod = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...methods) },
    fc.constantFrom(...RFC_9110_METHODS),
  );
  return fc
    .record({ method: someMethod, path, headers: headers(mediaType), body: hostileBody(fields), auth })
    .map(({ method, body, ...rest }) => ({
      ...rest,
      method,
      ...(method === "GET" || method === "HEAD" || method === "CONNECT" ? {} : { body }),
    }));
}

/** A CSV field, quoted when it must be (RFC 4180). */
export const csvField = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

const csvBody = fc.oneof(
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

// Values a path or query parameter of that name usually takes, so requests get past the first
// check often; any other parameter gets its example's value or hostile text.
const PARAMETER_VALUES: Record<string, fc.Arbitrary<string>> = {
  provider,
  externalAccountId: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
  id: fc.oneof(fc.constant(SEEDED_ASSET), validAssetId),
  docNumber: numberText,
  consistency: fc.oneof(fc.constantFrom("strong", "eventual", "STRONG"), hostileText),
  after: cursorText,
  limit: numberText,
};

const valuesOf = (name: string, example: string) =>
  PARAMETER_VALUES[name] ?? fc.oneof(fc.constant(example), hostileText);

/**
 * Ways a client may spell a path: as is (mostly), with one trailing slash (the same path, as
 * docs/API.md says), two, a doubled slash inside, or its last slash percent-encoded.
 */
const pathSpelling = fc.oneof(
  { weight: 6, arbitrary: fc.constant((path: string) => path) },
  fc.constantFrom(
    (path: string) => `${path}/`,
    (path: string) => `${path}//`,
    (path: string) => path.replace(/\/(?=[^/]*$)/, "//"),
    (path: string) => path.replace(/\/(?=[^/]*$)/, "%2F"),
    (path: string) => path.replace(/^\/v1\//, "/v1//"),
  ),
);

interface PathOptions {
  /** Query parameters the served document names for the operation, beyond the example's. */
  queryNames?: readonly string[];
  /** Whether the path may be spelt other ways (pathSpelling); as the route spells it otherwise. */
  respell?: boolean;
}

/**
 * Hostile requests aimed at one route of the table (test/support/routes.ts): its method mostly,
 * its path with random parameters and query values (those of its example and of the served
 * document), spelt in odd ways, random headers, and a random body of its JSON fields (or CSV,
 * when its example sends CSV).
 */
export function hostileRequestsFor(route: Route, options: PathOptions = {}): fc.Arbitrary<HostileRequest> {
  const { queryNames = [], respell = true } = options;
  const url = new URL(route.example.path, "http://localhost");
  const exampleSegments = url.pathname.split("/");
  const segments = route.pattern
    .split("/")
    .map((part, i) =>
      part.startsWith(":") ? segment(valuesOf(part.slice(1), exampleSegments[i]!)) : fc.constant(part),
    );
  const examples = new Map([...queryNames.map((name) => [name, ""] as const), ...url.searchParams]);
  const parameters = Object.fromEntries([...examples].map(([name, example]) => [name, valuesOf(name, example)]));
  const spelling = respell ? pathSpelling : fc.constant((path: string) => path);
  const path = fc
    .tuple(fc.tuple(...segments), query(parameters), spelling)
    .map(([parts, q, spell]) => `${spell(parts.join("/"))}${q}`);
  const mediaType = new Headers(route.example.headers).get("content-type") ?? "application/json";
  const base = requests({ methods: [route.method], path, fields: bodyFieldsOf(route), mediaType });
  if (mediaType !== "text/csv") return base;
  return fc
    .tuple(base, csvBody)
    .map(([request, csv]) => (request.body === undefined ? request : { ...request, body: csv }));
}

/** Paths no route serves, or almost: the router and the fallbacks. */
export const elsewhere: fc.Arbitrary<HostileRequest> = requests({
  methods: ["GET", "POST"],
  path: fc.oneof(
    fc.array(segment(hostileText), { minLength: 0, maxLength: 4 }).map((parts) => `/${["v1", ...parts].join("/")}`),
    fc.constantFrom(
      "/",
      "/healthz/",
      "//v1//assets",
      "/v1/../v1/assets",
      "/V1/assets",
      "/v1/assets/%2e%2e/import",
      "/v1/me/links/",
      "/v1/assets/",
    ),
  ),
  fields: ["name"],
});
