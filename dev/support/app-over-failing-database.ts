// The app for tests of what it answers when its database fails: every statement rejects with the
// given error (DatabaseUnavailableError, DatabaseOutcomeUnknownError, a refused login…), tokens are
// the tests' (dev/support/tokens.ts), and rate limits are counted in memory.
import { type App, createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { createMemoryRateLimiter } from "../../edge/rate-limit/memory.ts";
import { TEST_AUTH_SECRET } from "./tokens.ts";

export function appOverFailingDatabase(failure: Error, settings: Record<string, string> = {}): App {
  const fail = () => Promise.reject(failure);
  return createApp({
    sql: { query: fail, transaction: fail } as unknown as Sql,
    kv: createMemoryKv(),
    settings: parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET, ...settings }),
    runtime: "node",
    logger: silentLogger,
    rateLimiter: createMemoryRateLimiter(),
  });
}
