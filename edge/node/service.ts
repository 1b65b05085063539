// The Node service, as the production entry and `npm start` run it: settings → ports → the core
// app on Node's HTTP server, an in-process memory cache kept in step with the link change feed by
// a timer, and /docs when API_DOCS=on.
import { createApp } from "../../core/app.ts";
import { createLinkSync } from "../../core/links/sync.ts";
import { parseSettings, type RawSettings } from "../../core/settings/settings.ts";
import { createMemoryKv } from "../kv/memory.ts";
import { neonSqlFromSettings } from "../neon/neon-sql.ts";
import { apiReferenceEnabled, withApiReference } from "./api-reference.ts";
import { type ListenOptions, listen, type RunningServer } from "./server.ts";
import { readServerLimits } from "./settings.ts";

/** Throws a SettingsError naming the first unusable setting before anything listens. */
export async function startNodeService(env: RawSettings, listenOptions: ListenOptions): Promise<RunningServer> {
  const settings = parseSettings(env);
  const limits = readServerLimits(env);
  const deps = { sql: neonSqlFromSettings(settings), kv: createMemoryKv(), settings };
  const linkSync = createLinkSync(deps);
  const app = createApp({ ...deps, runtime: "node", linkSync });
  const fetch = apiReferenceEnabled(env.API_DOCS) ? withApiReference(app.fetch) : app.fetch;
  const server = await listen(fetch, { ...limits, ...listenOptions });
  const timer = setInterval(() => void linkSync.drain(), linkSync.intervalMs);
  timer.unref();
  return {
    url: server.url,
    async close() {
      clearInterval(timer);
      await server.close();
    },
  };
}
