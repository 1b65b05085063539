/**
 * The request with its URL as the WHATWG URL parser writes it, so that a path means the same
 * wherever it arrives. Node's adapter and workerd hand the app a parsed URL (`/v1/../v1/assets` is
 * `/v1/assets` there); Deno and Fastly hand it the request target as the client sent it, which the
 * router would take as written. Their entries pass each request through this; an unchanged URL,
 * any request a browser or `fetch` sends, keeps its request.
 */
export function withParsedUrl(request: Request): Request {
  const parsed = new URL(request.url).href;
  return parsed === request.url ? request : new Request(parsed, request);
}
