import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";

// Work in progress: the documents routes of the HTTP contract.
export function documentRoutes(_deps: AppDeps) {
  return new Hono<AppEnv>();
}
