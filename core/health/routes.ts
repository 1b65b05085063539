import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ProblemError, problemResponse } from "../http/problem.ts";
import { recentReadiness } from "./readiness.ts";

export function healthRoutes({ runtime }: AppDeps) {
  const isReady = recentReadiness();
  const app = new Hono<AppEnv>()
    .get("/healthz", (c) => c.json({ status: "ok", runtime }))
    .get("/readyz", async (c) => {
      if (await isReady(c.var.sql)) return c.json({ status: "ready", runtime });
      // Any failure means not ready. Probes read the status code; the body is a problem like
      // every other error, naming the runtime as /healthz does.
      const problem = new ProblemError(503, "database_unavailable", "The database cannot be reached.", { runtime });
      return problemResponse(problem, { "retry-after": "5" });
    });
  return app;
}
