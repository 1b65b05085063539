// The Node production entry: `npm run build:node`, then `node dist/node/index.js`. process.env →
// the Node service (edge/node/service.ts) on HOST:PORT (every interface, 8080 by default).
// SIGTERM (and Ctrl-C) stop accepting, let in-flight requests finish, then exit; an unusable
// setting, or a HOST or PORT it cannot listen on, stops it at start with one line naming it.

import { stopGracefullyOnSignals } from "../../core/server/graceful-stop.ts";
import { listenAddress, listenFailure } from "../../core/server/listen-address.ts";
import { misconfiguredLine } from "../../core/settings/misconfigured.ts";
import { SettingsError } from "../../core/settings/settings.ts";
import { nodeLogger } from "./log.ts";
import type { RunningServer } from "./server.ts";
import { startNodeService } from "./service.ts";

let server: RunningServer;
try {
  server = await startNodeService(
    process.env,
    listenAddress((name) => process.env[name]),
  );
} catch (error) {
  const misconfigured = error instanceof SettingsError ? error : listenFailure(error);
  if (!misconfigured) throw error;
  console.error(misconfiguredLine(misconfigured));
  process.exit(1);
}
nodeLogger.log("info", "listening", { url: server.url });
stopGracefullyOnSignals({
  onSignal: (signal, handler) => process.on(signal, handler),
  close: () => server.close(),
  exit: (code) => process.exit(code),
});
