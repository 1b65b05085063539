import type { MiddlewareHandler } from "hono";
import { ProblemError } from "./problem.ts";

/**
 * A path with an empty segment (`//` anywhere, two trailing slashes included) names nothing:
 * 404, as for any path no route serves. Only one trailing slash names the same path
 * (docs/API.md); the router would otherwise take `/v1/assets/x//` for `/v1/assets/x` and a link
 * path's last segment for an empty id.
 */
export const emptySegmentsNameNothing: MiddlewareHandler = async (c, next) => {
  if (new URL(c.req.url).pathname.includes("//")) throw new ProblemError(404, "not_found", "No such route.");
  await next();
};
