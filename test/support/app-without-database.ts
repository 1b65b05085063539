import { type App, createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import { parseSettings } from "../../core/settings.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { TEST_AUTH_SECRET } from "./tokens.ts";

const noDatabase = () => Promise.reject(new Error("no database in this test"));

/** The app for what needs only its routes, document and headers: any statement fails loudly. */
export function appWithoutDatabase(): App {
  return createApp({
    sql: { query: noDatabase, transaction: noDatabase },
    kv: createMemoryKv(),
    settings: parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET }),
    runtime: "node",
    logger: silentLogger,
  });
}
