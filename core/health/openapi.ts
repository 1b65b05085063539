// The probes' operations and what they answer.
import * as v from "valibot";
import type { Operations } from "../openapi/operations.ts";

export const schemas = {
  Health: v.strictObject({ status: v.literal("ok"), runtime: v.string() }),
  Ready: v.strictObject({ status: v.literal("ready"), runtime: v.string() }),
};

export const operations: Operations<keyof typeof schemas> = {
  "GET /healthz": {
    summary: "Liveness: the service answers.",
    responses: { 200: { description: "Alive.", body: "Health" } },
    problems: {},
  },
  "GET /readyz": {
    summary: "Readiness: Postgres answers.",
    responses: {
      200: { description: "Ready.", body: "Ready" },
      503: {
        description: "Postgres cannot be reached.",
        headers: { "retry-after": { description: "Seconds.", required: true } },
      },
    },
    problems: { 503: ["database_unavailable"] },
  },
};
