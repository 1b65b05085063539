import { createApp } from "../../core/app.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { parseSettings, type RawSettings } from "../../core/settings.ts";
import { neonSqlFromSettings } from "../../edge/neon/neon-sql.ts";
import { apiReferenceEnabled, withApiReference } from "../../edge/node/api-reference.ts";
import { listen } from "../../edge/node/server.ts";

/** Node: settings from the environment, Neon over HTTP, an in-process memory cache; /docs with API_DOCS=on. */
export function startNodeRuntime(env: RawSettings, { port }: { port?: number } = {}) {
  const settings = parseSettings(env);
  const app = createApp({ sql: neonSqlFromSettings(settings), kv: createMemoryKv(), settings, runtime: "node" });
  const fetch = apiReferenceEnabled(env.API_DOCS) ? withApiReference(app.fetch) : app.fetch;
  return listen(fetch, { port });
}
