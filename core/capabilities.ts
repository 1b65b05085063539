// Every capability of the API, in the order the app mounts them and the OpenAPI document lists them.
import { assets } from "./assets/index.ts";
import type { BackgroundJob } from "./background/job.ts";
import { documents } from "./documents/index.ts";
import { health } from "./health/index.ts";
import { links } from "./links/index.ts";
import type { Capability } from "./route.ts";

export const CAPABILITIES: readonly Capability[] = [health, links, assets, documents];

/** Every job the capabilities register, in their order: what the background runner is given. */
export const CAPABILITY_JOBS: readonly BackgroundJob[] = CAPABILITIES.flatMap((capability) => capability.jobs ?? []);
