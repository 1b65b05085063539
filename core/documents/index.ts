import type { Capability } from "../capability.ts";
import { documentKeyExpiryJob } from "./expiry.ts";
import { operations, schemas } from "./openapi.ts";
import { documentRoutes } from "./routes.ts";

export const documents: Capability = {
  tag: "documents",
  routes: documentRoutes,
  operations,
  schemas,
  jobs: [documentKeyExpiryJob],
};
