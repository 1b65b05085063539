// The route a request met, as the app registered it (`/v1/links/:provider/:externalAccountId`):
// the same for the request's log line and its span, whatever answered.
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "../deps.ts";
import { isMethodNotAllowedHandler } from "../mount.ts";

/**
 * The pattern of the route that answered the request, or that would have, had a middleware not
 * answered first (a refused token, a spent quota); a path's 405 is its route too. Undefined when
 * no route matched (a 404). Not Hono's `routePath`, which names the handler that ran last: the
 * token check's `/v1/*` for a 401. Not the last route matched: of two patterns that match one path
 * (`/v1/assets/import`, `/v1/assets/:id`), the first registered answers.
 */
export function matchedRoute(c: Context<AppEnv>): string | undefined {
  const routes = matchedRoutes(c);
  for (let i = c.req.routeIndex; i < routes.length; i++) {
    const route = routes[i]!;
    // A middleware is registered for every method (ALL), as a path's 405 is: that one is a route.
    if (route.method !== "ALL" || isMethodNotAllowedHandler(route.handler)) return route.path;
  }
  return undefined;
}
