// The conformance suite on Fastly Compute: the compiled service (bin/main.wasm, built on first use)
// served by Viceroy, Fastly's local runtime. What Viceroy cannot run is named in docs/fastly.md.
import { describeWithViceroy } from "../../dev/support/viceroy.ts";
import { runConformance } from "./run.ts";

describeWithViceroy("the Fastly service on Viceroy", () => runConformance("fastly"));
