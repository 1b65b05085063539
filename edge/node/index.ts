// The Node production entry: `npm run build:node`, then `node dist/node/index.js`. process.env →
// settings → ports → the core app, served on HOST:PORT (every interface, 8080 by default) with an
// in-process memory cache. SIGTERM (and Ctrl-C) stop accepting, let in-flight requests finish,
// then exit; an unusable setting stops it at start with one line naming the setting.
import { createApp } from "../../core/app.ts";
import { consoleLogger } from "../../core/log.ts";
import { misconfiguredLine } from "../../core/misconfigured.ts";
import { readSettings, SettingsError } from "../../core/settings.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { listenAddress } from "../../core/listen-address.ts";
import { neonSqlFromSettings } from "../neon/neon-sql.ts";
import { apiReferenceEnabled, withApiReference } from "./api-reference.ts";
import { listen, type RunningServer } from "./server.ts";

/** In-flight requests get this long after SIGTERM; orchestrators usually kill at 30 s. */
const SHUTDOWN_GRACE_MS = 25_000;

function createNodeApp() {
  const env = (name: string) => process.env[name];
  const settings = readSettings(env);
  const app = createApp({ sql: neonSqlFromSettings(settings), kv: createMemoryKv(), settings, runtime: "node" });
  // The interactive reference at /docs only when API_DOCS=on: off in production by default.
  const fetch = apiReferenceEnabled(env("API_DOCS")) ? withApiReference(app.fetch) : app.fetch;
  return { fetch, address: listenAddress(env) };
}

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

let service: ReturnType<typeof createNodeApp>;
try {
  service = createNodeApp();
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(misconfiguredLine(error));
  process.exit(1);
}
const server = await listen(service.fetch, service.address);
consoleLogger.log("info", "listening", { url: server.url });
stopOn(server, "SIGTERM");
stopOn(server, "SIGINT");
