// schemathesis against the node runtime over PGlite, as `npm start` serves it.
import { runSchemathesis } from "./run.ts";

runSchemathesis("node");
