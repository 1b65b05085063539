// The reuse probe without opting into reusable sandboxes: every instance serves one request, so
// it always answers 1.
let served = 0;

addEventListener("fetch", (event) => event.respondWith(new Response(String(++served))));
