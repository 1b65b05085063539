import type { Capability } from "../capability.ts";
import { operations, schemas } from "./openapi.ts";
import { documentRoutes } from "./routes.ts";

export const documents: Capability = { tag: "documents", routes: documentRoutes, operations, schemas };
