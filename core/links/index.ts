import type { Capability } from "../capability.ts";
import { linkRoutes, schemas } from "./routes.ts";

export const links: Capability = { tag: "links", routes: linkRoutes, schemas };
