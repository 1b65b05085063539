import { getPathNoStrict } from "hono/utils/url";
import { parsedUrl } from "../lib/url.ts";

// What the WHATWG URL parser rewrites in a path: a dot segment (`.`, `..`, `%2e`) or a backslash.
const REWRITTEN_BY_PARSER = /\/\.|%2e|\\/i;

/**
 * The path the app routes a request by: Hono's, without its strict trailing slash (one trailing
 * slash names the same path, docs/API.md), of the URL as the WHATWG parser writes it. Node's
 * adapter and workerd hand the app a parsed URL (`/v1/../v1/assets` is `/v1/assets` there); Deno
 * and Fastly the request target as the client sent it, which would be routed as written. A URL
 * with nothing the parser rewrites, any a browser or `fetch` sends, is routed as it is.
 */
export function routedPath(request: Request): string {
  return wildcardSegmentsEscaped(parsedPath(request));
}

function parsedPath(request: Request): string {
  if (!REWRITTEN_BY_PARSER.test(request.url)) return getPathNoStrict(request);
  // Routed as written when it is no URL at all: the app's first step refuses it (core/http/path.ts).
  const url = parsedUrl(request.url);
  // A plain GET of the parsed URL: only its URL is read, and TRACE, which `new Request` refuses,
  // is not carried over.
  return url ? getPathNoStrict(new Request(url.href)) : getPathNoStrict(request);
}

// A segment that is literally `*`, percent-encoded or not (Hono's getPath decodes `%2A`); first
// too, for a target of `*` that a runtime hands over with no slash before it (js-compute's `http://x*`).
const WILDCARD_SEGMENT = /(^|\/)\*(?=\/|$)/g;

/**
 * Hono's TrieRouter finds a wildcard's node both as the pattern and by its key, so a segment that
 * is literally `*` ran every middleware registered at `…/*` twice: two log lines, and two counts
 * against the caller's quota (honojs/hono#5370, open). Such a segment is routed as `%2A`, which
 * the wildcard matches once; the values a route reads come from the URL itself (core/mount.ts),
 * so they are what the client sent.
 */
function wildcardSegmentsEscaped(path: string): string {
  return path.includes("*") ? path.replace(WILDCARD_SEGMENT, "$1%2A") : path;
}
