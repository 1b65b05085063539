import type { RawSettings } from "../../core/settings/settings.ts";
import { startNodeService } from "../../edge/node/service.ts";

/** Node, in this process: the same service as the production entry, on 127.0.0.1. */
export function startNodeRuntime(env: RawSettings, { port }: { port?: number } = {}) {
  return startNodeService(env, { port });
}
