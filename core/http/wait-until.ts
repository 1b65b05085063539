import type { Context } from "hono";
import type { AppEnv } from "../deps.ts";
import type { Background } from "../tokens/jwks-cache.ts";

/** The platform's `waitUntil`, where the entry passed an execution context (Workers, Compute). */
export function waitUntilOf(c: Context<AppEnv>): Background | undefined {
  try {
    const context = c.executionCtx;
    return (work) => context.waitUntil(work);
  } catch {
    return undefined;
  }
}
