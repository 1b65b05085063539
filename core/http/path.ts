import type { MiddlewareHandler } from "hono";
import { parsedUrl } from "../lib/url.ts";
import { ProblemError } from "./problem.ts";

/**
 * A request whose target and Host make no URL is malformed: 400 (parsedUrl says where one gets
 * this far). A path with an empty segment (`//` anywhere, two trailing slashes included) names
 * nothing: 404, as for any path no route serves. Only one trailing slash names the same path
 * (docs/API.md); the router would otherwise take `/v1/assets/x//` for `/v1/assets/x` and a link
 * path's last segment for an empty id.
 */
export const pathsNamingSomething: MiddlewareHandler = async (c, next) => {
  const url = parsedUrl(c.req.url);
  if (!url) throw new ProblemError(400, "malformed_request", "The request's target and Host header make no URL.");
  if (url.pathname.includes("//")) throw new ProblemError(404, "not_found", "No such route.");
  await next();
};

/**
 * The values of a pattern's `:name` segments in `pathname`, percent-decoded here rather than by
 * the router: a malformed escape is told apart (`undefined`) instead of being taken literally,
 * and `%2F` may appear in a value.
 */
export function pathValues(pattern: string, pathname: string): Record<string, string | undefined> {
  const segments = pathname.split("/");
  const values: Record<string, string | undefined> = {};
  pattern.split("/").forEach((part, index) => {
    if (part.startsWith(":")) values[part.slice(1)] = decodeSegment(segments[index] ?? "");
  });
  return values;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
