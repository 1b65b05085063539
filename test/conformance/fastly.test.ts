// The conformance suite on Fastly Compute: the compiled service (bin/main.wasm, built on first use)
// served by Viceroy when it is on PATH, else by the Fastly test host (dev/fastly-host/).
import { runConformance } from "./run.ts";

runConformance("fastly");
