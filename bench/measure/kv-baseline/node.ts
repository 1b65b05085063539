// The bare KV get in Node, on the memory KV the Node service uses, behind the same server, and
// announcing its address as edge/node/index.ts does. launch.ts bundles it: run as built, like the
// release it is compared with.
import { createMemoryKv } from "../../../edge/kv/memory.ts";
import { listen } from "../../../edge/node/server.ts";
import { kvBaselineHandler } from "./handler.ts";

const server = await listen(kvBaselineHandler(createMemoryKv()), { port: 0, hostname: "127.0.0.1" });
console.log(JSON.stringify({ event: "listening", url: server.url }));
