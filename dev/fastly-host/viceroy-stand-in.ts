// Answers to Viceroy's command line (`viceroy --addr HOST:PORT -C fastly.toml main.wasm`) with the
// test host, so the launcher's Viceroy path is exercised where Viceroy itself cannot be installed.
import { parseArgs } from "node:util";
import { startFastlyHost } from "./host.ts";
import { readLocalServer } from "./manifest.ts";

const { values, positionals } = parseArgs({
  options: { addr: { type: "string" }, config: { type: "string", short: "C" } },
  allowPositionals: true,
});
const [hostname, port] = (values.addr ?? "127.0.0.1:7676").split(":");
const host = await startFastlyHost({
  wasmPath: positionals[0]!,
  config: readLocalServer(values.config!, process.env),
  hostname,
  port: Number(port),
});
console.log(`Listening on ${host.url}`);
process.on("SIGTERM", () => void host.close().then(() => process.exit(0)));
