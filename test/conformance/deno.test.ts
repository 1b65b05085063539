// The conformance suite on the deno runtime, started by its local launcher as a real server.
import { runConformance } from "./run.ts";

runConformance("deno");
