import type { Capability } from "../route.ts";
import { documentKeyExpiryJob } from "./expiry.ts";
import { documentRoutes, schemas } from "./routes.ts";

export const documents: Capability = {
  tag: "documents",
  routes: documentRoutes,
  schemas,
  jobs: [documentKeyExpiryJob],
};
