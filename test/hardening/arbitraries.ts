// fast-check generators of hostile requests: every route of the contract, with paths, headers,
// query strings and bodies that are random, malformed, oversized, oddly typed, full of unicode
// and control characters, or almost right (the values: hostile-values.ts). `CURRENT_ETAG` is
// replaced at send time by the seeded asset's current ETag, so compare-and-set writes are reached,
// not only refused.
import fc from "fast-check";
import { bearer, type TokenClaims } from "../../dev/support/tokens.ts";
import { bodyFieldsOf, RFC_9110_METHODS, type Route } from "../support/routes.ts";
import {
  CURRENT_OPAQUE,
  csvBody,
  cursorText,
  hostileBody,
  hostileText,
  numberText,
  provider,
  SEEDED_ASSET,
  validAssetId,
} from "./hostile-values.ts";

export const CURRENT_ETAG = "<current-etag>";
/** The origin a browser app is served from, as the runtimes under test list it in CORS_ORIGINS. */
export const LISTED_ORIGIN = "https://app.example";

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Omitted for GET and HEAD, which cannot carry one. */
  body?: string;
  /** The token's claims, or a raw Authorization value, or nothing. */
  auth: { claims: TokenClaims } | { raw: string } | { none: true };
  /**
   * Spaces and tabs sent before and after every header's value: no part of it (RFC 9110 §5.5),
   * though not every runtime drops them before the app sees the value.
   */
  padding: readonly [string, string];
}

/**
 * The request's headers and body as sent: the current ETag and opaque-tag filled in, and its auth
 * as an Authorization header (claims signed as `claimsOf` makes them).
 */
export async function filledIn(
  hostile: HostileRequest,
  opaque: string,
  claimsOf = (claims: TokenClaims) => claims,
): Promise<{ headers: Record<string, string>; body?: string }> {
  const fill = (text: string) => text.replaceAll(CURRENT_ETAG, `"${opaque}"`).replaceAll(CURRENT_OPAQUE, opaque);
  const headers = Object.fromEntries(Object.entries(hostile.headers).map(([name, value]) => [name, fill(value)]));
  if ("claims" in hostile.auth) headers.authorization = (await bearer(claimsOf(hostile.auth.claims))).authorization;
  else if ("raw" in hostile.auth) headers.authorization = hostile.auth.raw;
  const [before, after] = hostile.padding;
  for (const name in headers) headers[name] = `${before}${headers[name]}${after}`;
  return { headers, ...(hostile.body === undefined ? {} : { body: fill(hostile.body) }) };
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
    fc.constantFrom(
      "%",
      "%zz",
      "%C0%80",
      "%FF",
      "%00",
      "%2F",
      "a%2Fb",
      "%E2%82",
      ".",
      "..",
      "%2e%2e",
      "%20",
      "*",
      "%2A",
    ),
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
      origin: fc.oneof(
        { weight: 4, arbitrary: fc.constant(LISTED_ORIGIN) },
        fc.constantFrom("https://other.example", "null", LISTED_ORIGIN.toUpperCase(), `${LISTED_ORIGIN}/`),
        headerText(),
      ),
      "access-control-request-method": fc.oneof(fc.constantFrom(...RFC_9110_METHODS, "post", ""), headerText()),
      "access-control-request-headers": fc.constantFrom("authorization", "content-type, if-match", "x-other", ""),
    },
    { requiredKeys: ["content-type"] },
  );

const optionalWhitespace = fc.constantFrom("", " ", "\t", " \t ");
const padding = fc.oneof(
  { weight: 3, arbitrary: fc.constant(["", ""] as const) },
  fc.tuple(optionalWhitespace, optionalWhitespace),
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
    .record({ method: someMethod, path, headers: headers(mediaType), body: hostileBody(fields), auth, padding })
    .map(({ method, body, ...rest }) => ({
      ...rest,
      method,
      ...(method === "GET" || method === "HEAD" || method === "CONNECT" ? {} : { body }),
    }));
}

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
      "/*",
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
