import { createApp } from "../../core/app.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { parseSettings, type RawSettings } from "../../core/settings.ts";
import { neonSqlFromSettings } from "../../edge/neon/neon-sql.ts";
import { listen } from "../../edge/node/server.ts";

/** Node: settings from the environment, Neon over HTTP, an in-process memory cache. */
export function startNodeRuntime(env: RawSettings, { port }: { port?: number } = {}) {
  const settings = parseSettings(env);
  const app = createApp({ sql: neonSqlFromSettings(settings), kv: createMemoryKv(), settings, runtime: "node" });
  return listen(app.fetch, { port });
}
