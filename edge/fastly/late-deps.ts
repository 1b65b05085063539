import type { AppDeps } from "../../core/app.ts";
import type { KvCache } from "../../core/ports/kv.ts";
import type { Row, Sql } from "../../core/ports/sql.ts";
import type { Settings } from "../../core/settings/settings.ts";

/** What can only be made once a request runs: from the stores' values. */
export interface StoreDeps {
  sql: Sql;
  kv: KvCache;
  settings: Settings;
}

/**
 * The app's ports and settings as stand-ins that forward to the ones bound later. The build
 * snapshots the top level, so an app built over them there (routes, schemas, router) costs a
 * fresh instance nothing; the stores, which open only during a request, are bound then.
 * Used before `bind`, they throw: no request is served without its settings.
 */
export function lateBoundDeps(): { deps: Pick<AppDeps, "sql" | "kv" | "settings">; bind(deps: StoreDeps): void } {
  let bound: StoreDeps | undefined;
  const current = (): StoreDeps => {
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
  return {
    deps: { sql, kv, settings },
    bind(deps) {
      bound = deps;
    },
  };
}
