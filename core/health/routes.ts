import * as v from "valibot";
import type { RouteDeps } from "../deps.ts";
import { ProblemError, problemResponse } from "../http/problem.ts";
import { DatabaseError } from "../ports/sql.ts";
import { route } from "../route.ts";
import { SettingsError } from "../settings/error.ts";
import { type Readiness, recentReadiness } from "./readiness.ts";

export const schemas = {
  Health: v.strictObject({ status: v.literal("ok"), runtime: v.string() }),
  Ready: v.strictObject({ status: v.literal("ready"), runtime: v.string() }),
};

export function healthRoutes({ runtime, logger }: RouteDeps) {
  const readiness = recentReadiness(logger);
  return [
    route({
      method: "GET",
      path: "/healthz",
      access: "public",
      ignoresQuery: true,
      summary: "Liveness: the service answers.",
      responses: { 200: { description: "Alive.", body: schemas.Health } },
      problems: {},
      handler: (c) => c.json({ status: "ok", runtime }),
    }),
    route({
      method: "GET",
      path: "/readyz",
      access: "public",
      ignoresQuery: true,
      summary: "Readiness: Postgres answers, and holds the schema this release needs.",
      responses: {
        200: { description: "Ready.", body: schemas.Ready },
        503: {
          description: "Postgres cannot be reached, or lacks a migration this release needs.",
          headers: { "retry-after": { description: "Seconds.", required: true } },
        },
      },
      problems: { 503: ["database_unavailable", "database_schema_behind"] },
      handler: async (c) => {
        const check = await readiness(c.get("sql"));
        if (check.ready) return c.json({ status: "ready", runtime });
        const problem = notReady(check, runtime);
        c.set("problemCode", problem.code);
        return problemResponse(problem, { "retry-after": "5" });
      },
    }),
  ];
}

/**
 * Probes read the status code; the body is a problem like every other error, naming the runtime
 * as /healthz does. Which migration is missing is the log's to say (database_schema_behind): the
 * probe is anonymous.
 */
function notReady(check: Exclude<Readiness, { ready: true }>, runtime: string): ProblemError {
  if ("schemaBehind" in check) {
    const detail = "The database lacks a migration this release needs: run the release migrator.";
    return new ProblemError(503, "database_schema_behind", detail, { runtime });
  }
  // A login the database refuses fails every request that needs it alike: 500 misconfigured
  // naming DATABASE_URL, as those requests answer.
  if (check.error instanceof SettingsError) throw check.error;
  // Reached, but it refused the check (the role may not read schema_migrations, say): "cannot be
  // reached" would send an operator after the network.
  const detail =
    check.error instanceof DatabaseError
      ? "The database refused the readiness check: its readiness_check_failed warning says why."
      : "The database cannot be reached.";
  return new ProblemError(503, "database_unavailable", detail, { runtime });
}
