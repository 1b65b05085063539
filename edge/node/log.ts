// Node's log: each request's line written after its answer (core/log.ts), and whatever is still
// pending when the process exits (a graceful stop, an uncaught error) written then.
import { createDeferredLogger } from "../../core/log.ts";

export const nodeLogger = createDeferredLogger();
process.on("exit", nodeLogger.flush);
