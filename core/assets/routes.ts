import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";

// Work in progress: the assets routes of the HTTP contract.
export function assetRoutes(_deps: AppDeps) {
  return new Hono<AppEnv>();
}
