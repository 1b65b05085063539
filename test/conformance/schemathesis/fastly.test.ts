// schemathesis against the compiled Fastly service, served by Viceroy, over PGlite.
import { runSchemathesis } from "./run.ts";

runSchemathesis("fastly");
