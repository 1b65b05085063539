import type { Capability } from "../capability.ts";
import { assetKeyExpiryJob } from "./expiry.ts";
import { operations, schemas } from "./openapi.ts";
import { assetRoutes } from "./routes.ts";

export const assets: Capability = {
  tag: "assets",
  routes: assetRoutes,
  operations,
  schemas,
  jobs: [assetKeyExpiryJob],
};
