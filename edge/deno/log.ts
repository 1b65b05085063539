// Deno's log: each request's line written after its answer (core/log.ts), and whatever is still
// pending when the process ends (Deno.exit, the program's end: Deno dispatches `unload`) written
// then.
import { createDeferredLogger } from "../../core/log.ts";

export const denoLogger = createDeferredLogger();
globalThis.addEventListener("unload", denoLogger.flush);
