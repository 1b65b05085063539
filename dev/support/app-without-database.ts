// The app for what needs only its routes, its OpenAPI document and its headers: the build of the
// Fastly service (which embeds the document) and tests. Any statement fails loudly.
import { type App, createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";

const noDatabase = () => Promise.reject(new Error("no database here"));
// Never signs or verifies anything: no request of these reaches a route that needs a token.
const UNUSED_SECRET = "a-secret-for-an-app-that-serves-no-tokens";

export function appWithoutDatabase(runtime = "node"): App {
  return createApp({
    sql: { query: noDatabase, transaction: noDatabase },
    kv: createMemoryKv(),
    settings: parseSettings({ AUTH_SECRET: UNUSED_SECRET }),
    runtime,
    logger: silentLogger,
  });
}
