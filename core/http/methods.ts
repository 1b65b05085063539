import { ProblemError } from "./problem.ts";

/**
 * The methods RFC 9110 defines, PATCH (RFC 5789) and QUERY (RFC 10008), which OpenTelemetry's HTTP
 * conventions know too. On a path that does not serve one: 405 with `Allow` (TRACE, CONNECT and
 * QUERY included: the API knows them and serves them nowhere). Any other method token (PROPFIND,
 * BREW…) no route implements: 501 (RFC 9110 §15.6.2), and its span records it as `_OTHER`.
 */
export const RECOGNIZED_METHODS = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "TRACE",
  "CONNECT",
  "QUERY",
] as const;

const recognized: ReadonlySet<string> = new Set(RECOGNIZED_METHODS);

/**
 * The 501 of a method no route implements, the same whichever refuses it: the app, or Node's parser
 * for a token it does not know. It names no method: Deno and Compute pass on a token tens of KB long.
 */
export const unrecognizedMethod = () =>
  new ProblemError(501, "not_implemented", "No route implements this request method: it is not one HTTP defines.");

export const isRecognizedMethod = (method: string) => recognized.has(method);

/** The longest method token a log line keeps (the longest method IANA registers has 17 characters). */
const MAX_LOGGED_METHOD = 32;

/**
 * A request's method for its log line, as its span holds it: a recognized one as sent; any other
 * as `_OTHER`, with its first 32 characters in `methodOriginal` (Deno and Compute pass on
 * any token, tens of KB long, which would otherwise fill a line per request).
 */
export const loggedMethod = (method: string): { method: string; methodOriginal?: string } =>
  isRecognizedMethod(method) ? { method } : { method: "_OTHER", methodOriginal: method.slice(0, MAX_LOGGED_METHOD) };
