// schemathesis against the deno runtime over PGlite, as `npm start -- --runtime deno` serves it.
import { runSchemathesis } from "./run.ts";

runSchemathesis("deno");
