import { createApp } from "../../core/app.ts";
import { createLinkSync } from "../../core/links/sync.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { parseSettings, type RawSettings } from "../../core/settings.ts";
import { neonSqlFromSettings } from "../../edge/neon/neon-sql.ts";
import { listen } from "../../edge/node/server.ts";

/** Node: settings from the environment, Neon over HTTP, an in-process memory cache drained by a timer. */
export async function startNodeRuntime(env: RawSettings, { port }: { port?: number } = {}) {
  const settings = parseSettings(env);
  const deps = { sql: neonSqlFromSettings(settings), kv: createMemoryKv(), settings };
  const linkSync = createLinkSync(deps);
  const app = createApp({ ...deps, runtime: "node", linkSync });
  const server = await listen(app.fetch, { port });
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
