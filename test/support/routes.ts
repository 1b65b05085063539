// Every route of the app, as its capability declared it (method, path, who may call it), with a
// request that reaches its handler. The cross-cutting suites (auth matrix, injection, logging,
// properties, soak) walk this table; test/route-table.test.ts fails while a declared route has no
// example here, or an example names no declared route.
import type { Hono } from "hono";
import { routesOf } from "../../core/app.ts";
import type { Access } from "../../core/route.ts";
import { appWithoutDatabase } from "../../dev/support/app-without-database.ts";
import type { RequestOptions } from "./harness.ts";

/** With a valid token of tenant "acme" (an admin's for admin routes), reaches the handler. */
type Example = RequestOptions & { path: string };

/** RFC 9110's methods, PATCH and QUERY (RFC 10008): 405 where a path does not serve them; any other token is 501. */
export const RFC_9110_METHODS = [
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
];

/** Keyed `METHOD /pattern`, the pattern as declared (and as request logs name it). */
export const EXAMPLES: Record<string, Example> = {
  "GET /healthz": { path: "/healthz" },
  "GET /readyz": { path: "/readyz" },
  "GET /openapi.json": { path: "/openapi.json" },
  "PUT /v1/links/:provider/:externalAccountId": {
    path: "/v1/links/github/victim",
    method: "PUT",
    body: { displayName: "x" },
  },
  "GET /v1/links/:provider/:externalAccountId": { path: "/v1/links/github/victim?consistency=strong" },
  "DELETE /v1/links/:provider/:externalAccountId": { path: "/v1/links/github/victim", method: "DELETE" },
  "GET /v1/me/links": { path: "/v1/me/links" },
  "POST /v1/admin/links/resync": { path: "/v1/admin/links/resync", method: "POST" },
  "POST /v1/admin/links/sync": { path: "/v1/admin/links/sync", method: "POST" },
  "POST /v1/assets": { path: "/v1/assets", method: "POST", body: { name: "n", material: "m" } },
  "GET /v1/assets/:id": { path: "/v1/assets/victim" },
  "PUT /v1/assets/:id": {
    path: "/v1/assets/victim",
    method: "PUT",
    headers: { "if-none-match": "*" },
    body: { name: "n", material: "m" },
  },
  "PATCH /v1/assets/:id": {
    path: "/v1/assets/victim",
    method: "PATCH",
    headers: { "if-match": "*" },
    body: { name: "n" },
  },
  "POST /v1/assets/:id/approve": { path: "/v1/assets/victim/approve", method: "POST", headers: { "if-match": "*" } },
  "DELETE /v1/assets/:id": { path: "/v1/assets/victim", method: "DELETE", headers: { "if-match": "*" } },
  "POST /v1/assets/import": {
    path: "/v1/assets/import",
    method: "POST",
    headers: { "content-type": "text/csv" },
    body: "id,name,material,source_etag\nvictim,a,b,c\n",
  },
  "POST /v1/documents": { path: "/v1/documents", method: "POST", body: { contractId: "c", title: "t" } },
  "GET /v1/documents": { path: "/v1/documents?after=0&limit=10" },
  "GET /v1/documents/:docNumber": { path: "/v1/documents/1" },
};

export interface Route {
  key: string;
  method: string;
  /** Hono's pattern, e.g. /v1/assets/:id */
  pattern: string;
  access: Access;
  example: Example;
}

/** The routes the app declares; one without an example gets its bare path (route-table.test.ts fails). */
export const routes: Route[] = routesOf(appWithoutDatabase()).map(({ method, path, access }) => {
  const key = `${method} ${path}`;
  return { key, method, pattern: path, access, example: EXAMPLES[key] ?? { path, method } };
});

/**
 * The app's endpoints as `METHOD /pattern`: its routes for one method. `ALL` routes are
 * middleware (logging, authentication) or the 405 answer for a known path's other methods.
 */
export function appRouteKeys(app: Pick<Hono, "routes">): string[] {
  return [
    ...new Set(app.routes.filter((route) => route.method !== "ALL").map((route) => `${route.method} ${route.path}`)),
  ].sort();
}

/** The example's path with one path parameter replaced by `value` (percent-encoded). */
export function withParameter(route: Route, parameter: string, value: string): string {
  const [path, query] = route.example.path.split("?") as [string, string | undefined];
  const segments = path.split("/");
  const index = route.pattern.split("/").indexOf(`:${parameter}`);
  if (index < 0) throw new Error(`${route.key} has no parameter ${parameter}`);
  segments[index] = encodeURIComponent(value);
  return segments.join("/") + (query === undefined ? "" : `?${query}`);
}

/** The names of a route's path parameters. */
export const parametersOf = (route: Route) =>
  route.pattern
    .split("/")
    .filter((part) => part.startsWith(":"))
    .map((part) => part.slice(1));

/** The JSON body's field names, when the example sends a JSON object. */
export const bodyFieldsOf = (route: Route): string[] =>
  typeof route.example.body === "object" && route.example.body !== null ? Object.keys(route.example.body) : [];
