import type { Capability } from "../capability.ts";
import { operations, schemas } from "./openapi.ts";
import { healthRoutes } from "./routes.ts";

/** The probes, listed under "operations" with the document itself: what an operator reads. */
export const health: Capability = { tag: "operations", public: true, routes: healthRoutes, operations, schemas };
