import type { Context } from "hono";
import type * as v from "valibot";
import type { BackgroundJob } from "./background/job.ts";
import type { AppEnv, RouteDeps } from "./deps.ts";
import type { ProblemError } from "./http/problem.ts";
import type { Issue } from "./http/validation.ts";
import type { OperationSpec, PathParams, QuerySchema } from "./openapi/operations.ts";

/** Who may call a route: anyone (served at the root), any valid token, or an admin token (others get 403). */
export type Access = "public" | "token" | "admin";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

type Output<Schema> = Schema extends v.GenericSchema ? v.InferOutput<Schema> : undefined;

type ParamsOutput<Params> = Params extends PathParams
  ? { -readonly [Name in keyof Params]: v.InferOutput<Params[Name]["schema"]> }
  : undefined;

/** What a handler is given besides its context. */
export interface RouteInput<Query, Body, Params = undefined> {
  /** The query, already validated. */
  query: Output<Query>;
  /** The path's parameters, already decoded and validated. */
  params: ParamsOutput<Params>;
  /** Reads, parses and validates the body (413, 415, 400 or 422), when the handler is ready to. */
  body: () => Promise<Output<Body>>;
}

/**
 * One route, said once: the Hono app serves it (core/app.ts), the OpenAPI document describes it
 * (core/openapi/) and the tests walk it (test/support/routes.ts), all from this declaration.
 */
export interface Route<
  Query extends QuerySchema | undefined = QuerySchema | undefined,
  Body extends v.GenericSchema | undefined = v.GenericSchema | undefined,
  Params extends PathParams | undefined = PathParams | undefined,
> extends OperationSpec<Query, Body, Params> {
  method: Method;
  /** As served, Hono's pattern: `/v1/assets/:id`. A public route is outside `/v1`, every other inside. */
  path: string;
  access: Access;
  /**
   * Takes any query and reads none. Only for the probes: a prober's cache-buster
   * (`/healthz?t=…`) must not fail the probe. Every other route refuses a query parameter it does
   * not declare in `query` (any, without one): 422 `validation_failed` (core/http/query.ts).
   */
  ignoresQuery?: true;
  /**
   * What a path whose parameters do not decode or fail their schemas answers. Without it: 400
   * `malformed_request` for a malformed percent-escape, else 422 `validation_failed`; a route
   * whose path then names nothing says so here (404).
   */
  refusePath?: (c: Context<AppEnv>, issues: readonly Issue[]) => ProblemError;
  // A method, so that a route's declaration is a Route whatever its schemas.
  handler(c: Context<AppEnv>, input: RouteInput<Query, Body, Params>): Response | Promise<Response>;
}

/** Declares a route, its handler typed by the schemas it names. */
export const route = <
  Query extends QuerySchema | undefined = undefined,
  Body extends v.GenericSchema | undefined = undefined,
  Params extends PathParams | undefined = undefined,
>(
  declaration: Route<Query, Body, Params>,
): Route => declaration;

/**
 * One part of the API, all it takes to serve and document it: a folder of core/ exports it from
 * its index.ts, and core/capabilities.ts lists it.
 */
export interface Capability {
  /** The OpenAPI tag its operations are listed under. */
  tag: string;
  /** The named schemas of `components.schemas` its routes answer with. */
  schemas: Record<string, v.GenericSchema>;
  /** Its routes, built once per app. */
  routes: (deps: RouteDeps) => readonly Route[];
  /** Its background jobs (core/background/job.ts), which every deployment runs. */
  jobs?: readonly BackgroundJob[];
}
