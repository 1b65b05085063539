// The bare KV get compiled by js-compute (bin/kv-baseline.wasm), on the same KV Store as the service.
import { setReusableSandboxOptions } from "fastly:experimental";
import { KVStore } from "fastly:kv-store";
import { KV_STORE } from "../../../edge/fastly/bindings.ts";
import { SANDBOX_REUSE } from "../../../edge/fastly/reuse.ts";
import { createFastlyKv } from "../../../edge/kv/fastly-kv.ts";
import { kvBaselineHandler } from "./handler.ts";

// Instances serve request after request as the service's do: the baseline runs as the service does.
setReusableSandboxOptions(SANDBOX_REUSE);

// Stores open only while a request runs, as in the service.
const handle = (request: Request) => kvBaselineHandler(createFastlyKv(new KVStore(KV_STORE)))(request);

addEventListener("fetch", (event) => event.respondWith(handle(event.request)));
