// One wiring for every runtime: from what a runtime provides (its name, its settings and KV
// store, how its SQL requests and key-set fetches leave, its per-invocation limits) to the app it
// serves and the drain its scheduler triggers. An entry keeps only what differs: how it serves,
// when it drains, how an unusable setting is reported.
import { type App, createApp } from "../core/app.ts";
import type { InvocationLimits } from "../core/background/invocation-budget.ts";
import { createLinkSync, type LinkSync } from "../core/links/sync.ts";
import type { KvCache } from "../core/ports/kv.ts";
import type { Settings } from "../core/settings/settings.ts";
import { neonSqlFromSettings } from "./neon/neon-sql.ts";
import type { RuntimeName } from "./runtimes.ts";

/** What a runtime reads before anything is served: its settings and its KV store. */
export interface RuntimeStores {
  settings: Settings;
  kv: KvCache;
}

export interface RuntimeParts {
  /** Its name in edge/runtimes.ts, which `/healthz` reports. */
  runtime: RuntimeName;
  stores: RuntimeStores;
  /** How the Neon driver's requests leave (Fastly: through the `neon` backend). */
  sql?: Parameters<typeof neonSqlFromSettings>[1];
  /** How AUTH_JWKS_URL is fetched, when not with the global `fetch`. */
  jwksFetch?: typeof fetch;
  /** What one invocation may spend (Workers: KV operations; Fastly: backend requests). */
  limits?: InvocationLimits;
}

export interface Deployment {
  app: App;
  /** The drain of the link change feed, as the runtime's scheduler triggers it. */
  linkSync: Pick<LinkSync, "drain" | "runFor" | "drainIfDue" | "intervalMs">;
}

/** The app and its drain over the runtime's stores; an unusable setting throws a SettingsError. */
export function createDeployment(parts: RuntimeParts): Deployment {
  const { settings, kv } = parts.stores;
  const sql = neonSqlFromSettings(settings, parts.sql);
  const linkSync = createLinkSync({ sql, kv, settings }, { limits: parts.limits });
  const app = createApp({ sql, kv, settings, runtime: parts.runtime, jwksFetch: parts.jwksFetch });
  return { app, linkSync };
}
