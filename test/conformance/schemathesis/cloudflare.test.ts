// schemathesis against the cloudflare runtime (workerd, through Miniflare) over PGlite, as
// `npm start -- --runtime cloudflare` serves it.
import { runSchemathesis } from "./run.ts";

runSchemathesis("cloudflare");
