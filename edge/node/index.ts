// The Node production entry: `npm run build:node`, then `node dist/node/index.js`. process.env →
// the Node service (edge/node/service.ts) on HOST:PORT (every interface, 8080 by default).
// SIGTERM (and Ctrl-C) stop accepting, let in-flight requests finish, then exit; an unusable
// setting stops it at start with one line naming the setting.
import { listenAddress } from "../../core/listen-address.ts";
import { consoleLogger } from "../../core/log.ts";
import { misconfiguredLine } from "../../core/misconfigured.ts";
import { SettingsError } from "../../core/settings.ts";
import type { RunningServer } from "./server.ts";
import { startNodeService } from "./service.ts";

/** In-flight requests get this long after SIGTERM; orchestrators usually kill at 30 s. */
const SHUTDOWN_GRACE_MS = 25_000;

function stopOn(server: RunningServer, signal: NodeJS.Signals) {
  process.once(signal, () => {
    consoleLogger.log("info", "stopping", { signal });
    setTimeout(() => {
      consoleLogger.log("error", "stop_timeout", { graceMs: SHUTDOWN_GRACE_MS });
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    void server.close().then(() => process.exit(0));
  });
}

let server: RunningServer;
try {
  server = await startNodeService(
    process.env,
    listenAddress((name) => process.env[name]),
  );
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(misconfiguredLine(error));
  process.exit(1);
}
consoleLogger.log("info", "listening", { url: server.url });
stopOn(server, "SIGTERM");
stopOn(server, "SIGINT");
