// Serves the routes the capabilities declare (core/route.ts) on the app: each with its
// description for the OpenAPI document, its access check, its query's and path's validation and
// its handler; each path with a 405 for the methods it does not serve.
import type { Context, Hono, MiddlewareHandler } from "hono";
import { describeRoute, validator } from "hono-openapi";
import * as v from "valibot";
import type { AppEnv, RouteDeps } from "./deps.ts";
import { readBodyText, readJson, requireMediaType, requireUtf8Charset, validate } from "./http/body.ts";
import { RECOGNIZED_METHODS } from "./http/methods.ts";
import { pathValues } from "./http/path.ts";
import { methodNotAllowedProblem, ProblemError } from "./http/problem.ts";
import { noQuery, unknownParameterIssues } from "./http/query.ts";
import { type Issue, validationFailed } from "./http/validation.ts";
import { operation } from "./openapi/describe.ts";
import { namedSchemas, nameOf } from "./openapi/document.ts";
import { conversion } from "./openapi/json-schema.ts";
import type { BodySpec } from "./openapi/operations.ts";
import type { Capability, Route } from "./route.ts";

/** A route and the tag of the capability that declared it. */
export interface DeclaredRoute extends Route {
  tag: string;
}

/** Each declared path's 405, put right after the path's own methods. */
const methodNotAllowedHandlers = new WeakSet<object>();

/** Whether `handler` is a declared path's 405: a method that meets it first is not served there. */
export const isMethodNotAllowedHandler = (handler: unknown): boolean =>
  typeof handler === "function" && methodNotAllowedHandlers.has(handler);

/** Mounts every route of `capabilities` on `app`, in their order; returns them. */
export function mountCapabilities(
  app: Hono<AppEnv>,
  capabilities: readonly Capability[],
  deps: RouteDeps,
): readonly DeclaredRoute[] {
  const nameOfSchema = nameOf(namedSchemas(capabilities));
  const routes = capabilities.flatMap(({ tag, routes }) => routes(deps).map((route) => ({ ...route, tag })));
  for (const [path, served] of byPath(routes)) {
    for (const route of served) {
      requireServedWhereItsAccessSays(route);
      requireItsPathDeclared(route);
      for (const { body } of Object.values(route.responses)) if (body) nameOfSchema(body);
      const handlers = [describeRoute(operation(route, route.tag, nameOfSchema)), ...handlersOf(route)];
      app.on(route.method, path, ...(handlers as [MiddlewareHandler<AppEnv>]));
    }
    // Right after the path's own methods: a later route whose pattern matches this path too
    // (`/v1/assets/:id` for `/v1/assets/import`) never answers it.
    const allow = inOrder(served.flatMap(({ method }) => (method === "GET" ? ["GET", "HEAD"] : [method])));
    const refuseOtherMethods = () => {
      throw methodNotAllowedProblem(allow);
    };
    methodNotAllowedHandlers.add(refuseOtherMethods);
    app.all(path, refuseOtherMethods);
  }
  return routes;
}

function handlersOf(route: Route): MiddlewareHandler<AppEnv>[] {
  const { query, body } = route;
  const readParams = paramsReader(route);
  return [
    ...(route.access === "admin" ? [adminOnly] : []),
    ...queryReader(route),
    async (c) =>
      route.handler(c, {
        query: query && c.req.valid("query" as never),
        params: readParams(c),
        body: () => readBody(c, body),
      }),
  ];
}

/** Reads the path's declared parameters, decoded and validated; a failure answers what the route says. */
function paramsReader({
  path,
  params,
  refusePath,
}: Route): (c: Context<AppEnv>) => Record<string, unknown> | undefined {
  if (!params) return () => undefined;
  const schema = v.object(Object.fromEntries(Object.entries(params).map(([name, param]) => [name, param.schema])));
  const refuse = (c: Context<AppEnv>, issues: readonly Issue[], problem: ProblemError) =>
    refusePath ? refusePath(c, issues) : problem;
  return (c) => {
    const values = pathValues(path, new URL(c.req.url).pathname);
    const undecodable = Object.keys(values).filter((name) => values[name] === undefined);
    if (undecodable.length > 0) {
      const issues = undecodable.map((name) => ({ message: "must be valid percent-encoded UTF-8", path: [name] }));
      throw refuse(
        c,
        issues,
        new ProblemError(400, "malformed_request", "The path is not valid percent-encoded UTF-8."),
      );
    }
    const result = v.safeParse(schema, values);
    if (!result.success) throw refuse(c, result.issues, validationFailed(result.issues));
    return result.output;
  };
}

/** A public route is served at the root, before any token check; every other under /v1, behind it. */
function requireServedWhereItsAccessSays({ method, path, access }: Route) {
  if ((access === "public") === path.startsWith("/v1/")) {
    throw new Error(`${method} ${path}: a ${access} route is served ${access === "public" ? "outside" : "under"} /v1`);
  }
}

/** Each `:name` of a path is declared in `params`, and nothing else: the mount validates what it declares. */
function requireItsPathDeclared({ method, path, params = {} }: Route) {
  const inPath = path.split("/").flatMap((part) => (part.startsWith(":") ? [part.slice(1)] : []));
  if (inPath.sort().join() !== Object.keys(params).sort().join()) {
    throw new Error(`${method} ${path}: params must declare exactly ${inPath.join(", ") || "nothing"}`);
  }
}

function byPath(routes: readonly DeclaredRoute[]): Map<string, DeclaredRoute[]> {
  const paths = new Map<string, DeclaredRoute[]>();
  for (const route of routes) paths.set(route.path, [...(paths.get(route.path) ?? []), route]);
  return paths;
}

/** In RFC 9110's order (GET, HEAD, POST…), whatever order the routes were declared in. */
const inOrder = (methods: readonly string[]) => RECOGNIZED_METHODS.filter((method) => methods.includes(method));

const adminOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get("principal").role !== "admin") throw new ProblemError(403, "forbidden", "Only admin tokens may do this.");
  await next();
};

/**
 * What reads the query before the handler: its schema, and the refusal of any parameter it does
 * not take (none where it has no schema); nothing for a route that ignores its query.
 */
function queryReader({ query, ignoresQuery }: Route): MiddlewareHandler<AppEnv>[] {
  if (ignoresQuery) return [];
  if (!query) return [noQuery];
  const takes = Object.keys(query.entries);
  return [validator("query", query, refuseInvalid(takes), { options: { ...conversion } }) as MiddlewareHandler<AppEnv>];
}

/**
 * The validator's hook: the contract's 422 instead of the validator's own answer, for the
 * parameters the route does not take (read from the query the validator parsed) and those its
 * schema refuses. A parameter given twice reaches a query's schema as a list of its values: said
 * as such, not as its type.
 */
const refuseInvalid =
  (takes: readonly string[]) =>
  (
    result: {
      data: object;
      success: boolean;
      error?: readonly { message: string; path?: readonly unknown[]; input?: unknown }[];
    },
    c: Context<AppEnv>,
  ) => {
    const unknown = unknownParameterIssues(c.req.url, result.data, takes);
    if (result.success && unknown.length === 0) return;
    const invalid = (result.error ?? []).map((issue) =>
      Array.isArray(issue.input) ? { ...issue, message: "must be given once" } : issue,
    );
    throw validationFailed([...unknown, ...invalid]);
  };

/** The declared body, read as the contract says (413, 415, 400, 422). */
async function readBody(c: Context<AppEnv>, body: BodySpec | undefined) {
  if (!body) throw new Error(`${c.req.method} ${c.req.routePath} declares no body`);
  const others = body.mediaTypes.filter((media) => media !== "application/json");
  if (others.length === body.mediaTypes.length) {
    requireMediaType(c.req.raw, body.mediaTypes);
    requireUtf8Charset(c.req.raw);
    return validate(body.schema, await readBodyText(c.req.raw));
  }
  return readJson(c.req.raw, body.schema, { mediaTypes: others, ...(body.optional ? { whenEmpty: {} } : {}) });
}
