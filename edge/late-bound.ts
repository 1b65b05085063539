import type { Background } from "../core/background/job.ts";
import type { KvCache } from "../core/ports/kv.ts";
import type { Row, Sql } from "../core/ports/sql.ts";
import type { Settings } from "../core/settings/settings.ts";

/** What the app is built over: the two ports, the settings and the background jobs' runner. */
export interface BoundParts {
  sql: Sql;
  kv: KvCache;
  settings: Settings;
  background: Background;
}

/**
 * Stand-ins that forward to the parts bound later. Fastly's build snapshots the top level, so an
 * app built over them there (routes, schemas, router) costs a fresh instance nothing; its stores,
 * which open only during a request, are bound then. Used before `bind`, they throw: no request
 * is served without its settings.
 */
export function lateBound(): { parts: BoundParts; bind(parts: BoundParts): void } {
  let bound: BoundParts | undefined;
  const current = (): BoundParts => {
    if (!bound) throw new Error("the service's settings are not read yet");
    return bound;
  };
  const sql: Sql = {
    query: <T extends Row = Row>(text: string, params?: readonly unknown[]) => current().sql.query<T>(text, params),
    transaction: (statements, options) => current().sql.transaction(statements, options),
  };
  const kv: KvCache = {
    get: (key) => current().kv.get(key),
    put: (key, value, options) => current().kv.put(key, value, options),
    delete: (key) => current().kv.delete(key),
    list: (prefix, options) => current().kv.list(prefix, options),
  };
  const settings = new Proxy({} as Settings, { get: (_, name) => current().settings[name as keyof Settings] });
  const background: Background = {
    run: () => current().background.run(),
    runIfDue: () => current().background.runIfDue(),
    runFor: (periodMs) => current().background.runFor(periodMs),
    runNow: (job) => current().background.runNow(job),
    invocationBudget: () => current().background.invocationBudget(),
    get intervalMs() {
      return current().background.intervalMs;
    },
  };
  return {
    parts: { sql, kv, settings, background },
    bind(parts) {
      bound = parts;
    },
  };
}
