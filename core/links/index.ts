import type { Capability } from "../capability.ts";
import { LINK_JOBS } from "./jobs.ts";
import { operations, schemas } from "./openapi.ts";
import { linkRoutes } from "./routes.ts";

export const links: Capability = { tag: "links", routes: linkRoutes, operations, schemas, jobs: LINK_JOBS };
