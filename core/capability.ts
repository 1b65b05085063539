import type { Hono } from "hono";
import type { Schema } from "hono/types";
import type * as v from "valibot";
import type { BackgroundJob } from "./background/job.ts";
import type { AppEnv, RouteDeps } from "./deps.ts";
import type { Operations } from "./openapi/operations.ts";

/** What the OpenAPI document says of a group of routes. */
export interface ApiDescription {
  /** The OpenAPI tag its operations are listed under. */
  tag: string;
  /** Answered without a token (probes); otherwise behind the token check. */
  public?: boolean;
  /** What each route means: one entry per route it serves. */
  operations: Operations;
  /** The named schemas of `components.schemas` its operations answer with. */
  schemas: Record<string, v.GenericSchema>;
}

/**
 * One part of the API, all it takes to serve and document it: a folder of core/ exports it from
 * its index.ts, and core/capabilities.ts lists it.
 */
export interface Capability extends ApiDescription {
  /** Its routes: mounted at the root when public, otherwise under `/v1`, behind the token check. */
  routes: (deps: RouteDeps) => Hono<AppEnv, Schema, string>;
  /** Its background jobs (core/background/job.ts), which every deployment runs. */
  jobs?: readonly BackgroundJob[];
}
