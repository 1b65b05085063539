import { createApp } from "../../core/app.ts";
import { createMemoryKv } from "../../core/kv/memory-kv.ts";
import { parseSettings, type RawSettings } from "../../core/settings.ts";
import { createNeonSql } from "../neon/neon-sql.ts";
import { listen } from "./server.ts";

/** Node: settings from the environment, Neon over HTTP, an in-process memory cache. */
export function startNodeRuntime(env: RawSettings, { port }: { port?: number } = {}) {
  const settings = parseSettings(env);
  if (!settings.databaseUrl) throw new Error("DATABASE_URL is required");
  const sql = createNeonSql({ databaseUrl: settings.databaseUrl, fetchEndpoint: settings.neonFetchEndpoint });
  const app = createApp({ sql, kv: createMemoryKv(), settings, runtime: "node" });
  return listen(app.fetch, { port });
}
