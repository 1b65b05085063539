import type { Capability } from "../route.ts";
import { schemas } from "./answers.ts";
import { assetKeyExpiryJob } from "./expiry.ts";
import { assetRoutes } from "./routes.ts";

export const assets: Capability = { tag: "assets", routes: assetRoutes, schemas, jobs: [assetKeyExpiryJob] };
