import type { Capability } from "../route.ts";
import { LINK_JOBS } from "./jobs.ts";
import { linkRoutes, schemas } from "./routes.ts";

export const links: Capability = { tag: "links", routes: linkRoutes, schemas, jobs: LINK_JOBS };
