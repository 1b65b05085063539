// The bare KV get (fastly.ts) with every module the Fastly service builds its app from held by the
// snapshot and never called: what js-compute's full GC before each reused request costs for the
// service's modules alone (`npm run measure:kv-hit-profile`, viceroy.ts there).
import * as instance from "../../../edge/instance.ts";
import * as telemetry from "../../../edge/telemetry/telemetry.ts";
import "./fastly.ts";

(globalThis as { heldModules?: unknown }).heldModules = [instance, telemetry];
