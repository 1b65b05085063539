// Deno's log: each request's line written after its answer (core/log.ts), and whatever is still
// pending when the process ends written then: Deno.exit and the program's end dispatch `unload`,
// an uncaught error `error` or `unhandledrejection` (the process still ends as it would).
import { createDeferredLogger } from "../../core/log.ts";

export const denoLogger = createDeferredLogger();
for (const event of ["unload", "error", "unhandledrejection"]) globalThis.addEventListener(event, denoLogger.flush);
