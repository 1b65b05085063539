import { getPathNoStrict } from "hono/utils/url";

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
  if (!REWRITTEN_BY_PARSER.test(request.url)) return getPathNoStrict(request);
  // A plain GET of the parsed URL: only its URL is read, and TRACE, which `new Request` refuses,
  // is not carried over.
  return getPathNoStrict(new Request(new URL(request.url).href));
}
