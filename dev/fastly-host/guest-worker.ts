// A worker thread that runs guest instances, one request at a time. The host (host.ts) bundles
// this file and starts it; `workerData` carries the compiled service, the configuration and the
// link back to the main thread. The next request's fresh instance is made as soon as the last one
// is done, before that request arrives: instantiation stays off the request's critical path. An
// instance that opted into serving several requests waits for them inside `run` (downstream.ts).
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { type DownstreamRequest, GuestFactory } from "./guest/instance.ts";
import type { LocalServerConfig } from "./manifest.ts";
import type { ImagedModule } from "./memory-image.ts";
import { HostLink } from "./rpc.ts";

interface GuestWorkerData {
  service: WebAssembly.Module | ImagedModule;
  config: LocalServerConfig;
  port: MessagePort;
  signal: SharedArrayBuffer;
}

const { service, config, port, signal } = workerData as GuestWorkerData;
const link = new HostLink(port, new Int32Array(signal));
const factory = new GuestFactory(service, config, link);

let next = factory.prepare();
link.emit({ event: "ready" });

parentPort!.on("message", (request: DownstreamRequest) => {
  const outcome = next.run(request);
  // An instance that served its last request and found no other exits by design.
  if (outcome.exitCode && !outcome.betweenRequests)
    link.emit({ event: "log", stream: "stderr", text: `[fastly-host] exit code ${outcome.exitCode}\n` });
  link.emit({ event: "done", ...outcome });
  next = factory.prepare();
  link.emit({ event: "ready" });
});
