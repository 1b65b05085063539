import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";

// Work in progress: the links routes of the HTTP contract.
export function linkRoutes(_deps: AppDeps) {
  return new Hono<AppEnv>();
}
