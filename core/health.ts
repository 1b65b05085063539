import { Hono } from "hono";
import type { AppDeps, AppEnv } from "./deps.ts";

export function healthRoutes({ sql, runtime }: AppDeps) {
  return new Hono<AppEnv>()
    .get("/healthz", (c) => c.json({ status: "ok", runtime }))
    .get("/readyz", async (c) => {
      try {
        await sql.query("SELECT 1 AS ok");
        return c.json({ status: "ready", runtime });
      } catch {
        // Any failure means not ready; probes read the status, not a problem body.
        return c.json({ status: "unavailable", runtime }, 503, { "retry-after": "5" });
      }
    });
}
