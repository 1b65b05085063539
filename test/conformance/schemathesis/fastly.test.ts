// schemathesis against the compiled Fastly service, served by Viceroy when it is on PATH (else by
// the Fastly test host, dev/fastly-host/), over PGlite.
import { runSchemathesis } from "./run.ts";

runSchemathesis("fastly");
