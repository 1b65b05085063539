import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ProblemError, problemResponse } from "../http/problem.ts";

export function healthRoutes({ runtime }: AppDeps) {
  const app = new Hono<AppEnv>()
    .get("/healthz", (c) => c.json({ status: "ok", runtime }))
    .get("/readyz", async (c) => {
      try {
        await c.var.sql.query("SELECT 1 AS ok");
        return c.json({ status: "ready", runtime });
      } catch {
        // Any failure means not ready. Probes read the status code; the body is a problem like
        // every other error, naming the runtime as /healthz does.
        const problem = new ProblemError(503, "database_unavailable", "The database cannot be reached.", { runtime });
        return problemResponse(problem, { "retry-after": "5" });
      }
    });
  return app;
}
