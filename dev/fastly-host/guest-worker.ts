// A worker thread that runs guest instances, one request at a time. The host (host.ts) bundles
// this file and starts it; `workerData` carries the compiled service, the configuration and the
// link back to the main thread.
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { runGuest, type DownstreamRequest } from "./guest/instance.ts";
import type { LocalServerConfig } from "./manifest.ts";
import { HostLink } from "./rpc.ts";

interface GuestWorkerData {
  module: WebAssembly.Module;
  config: LocalServerConfig;
  port: MessagePort;
  signal: SharedArrayBuffer;
}

const { module, config, port, signal } = workerData as GuestWorkerData;
const link = new HostLink(port, new Int32Array(signal));

parentPort!.on("message", (request: DownstreamRequest) => {
  const outcome = runGuest(module, config, link, request);
  if (outcome.exitCode) link.emit({ event: "log", stream: "stderr", text: `[fastly-host] exit code ${outcome.exitCode}\n` });
  link.emit({ event: "done", ...outcome });
});
