import type { Capability } from "../route.ts";
import { healthRoutes, schemas } from "./routes.ts";

/** The probes, listed under "operations" with the document itself: what an operator reads. */
export const health: Capability = { tag: "operations", routes: healthRoutes, schemas };
