// The conformance suite on the node runtime, started by its local launcher as a real server.
import { runConformance } from "./run.ts";

runConformance("node");
