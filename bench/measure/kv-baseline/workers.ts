// The bare KV get as a Worker, on a Workers KV namespace bound as LINKS like the service's.
import { createWorkersKv, type WorkersKvNamespace } from "../../../edge/kv/workers-kv.ts";
import { kvBaselineHandler } from "./handler.ts";

export default {
  fetch: (request: Request, env: { LINKS: WorkersKvNamespace }) =>
    kvBaselineHandler(createWorkersKv(env.LINKS))(request),
};
