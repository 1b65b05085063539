// A service that opts into reusable sandboxes, for the Fastly test host's tests: it answers with the
// number of requests its instance has served, so a test sees which requests shared an instance.
import { setReusableSandboxOptions } from "fastly:experimental";

setReusableSandboxOptions({ maxRequests: 3, betweenRequestTimeoutMs: 300 });

let served = 0;

addEventListener("fetch", (event) => event.respondWith(new Response(String(++served))));
