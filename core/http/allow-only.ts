import type { Hono } from "hono";
import type { AppEnv } from "../deps.ts";
import { ProblemError } from "./problem.ts";

/**
 * Registered after a path's real handlers: any other method there is a 405 with `Allow`, rather
 * than the 404 a router gives a path it knows under another method.
 */
export function allowOnly(app: Hono<AppEnv>, path: string, methods: readonly string[]): void {
  const allow = methods.join(", ");
  app.all(path, () => {
    throw new ProblemError(405, "method_not_allowed", `Allowed: ${allow}.`, {}, { allow });
  });
}
