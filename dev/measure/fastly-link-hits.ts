// KV hits for measuring the Fastly service without a database: links put straight into the KV
// store, and a background lease that is not due (no drain reaches the database).

import { BACKGROUND_LEASE_KEY } from "../../core/background/runner.ts";
import type { CacheEntry } from "../../core/links/cache.ts";
import { linkKey } from "../../core/links/kv-keys.ts";
import { KV_STORE } from "../../edge/fastly/bindings.ts";
import type { FastlyHost } from "../fastly-host/host.ts";
import { signToken, TEST_AUTH_SETTINGS } from "../support/tokens.ts";

export const LINK_HITS = 16;
const HOUR_MS = 3_600_000;

/** Settings that need no database: /healthz and KV hits only. */
export const NO_DATABASE_ENV = {
  ...TEST_AUTH_SETTINGS,
  DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
  NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
};

/** Seeds `LINK_HITS` links; returns how to ask for the i-th. */
export async function seedLinkHits(host: FastlyHost): Promise<(i: number) => Promise<Response>> {
  const now = Date.now();
  for (let i = 0; i < LINK_HITS; i++) {
    const link = { provider: "github", externalAccountId: `hit-${i}`, userId: `user-${i}`, displayName: null };
    const entry: CacheEntry = {
      tenantId: "bench",
      link: { ...link, linkedAt: new Date(now).toISOString() },
      readAt: now,
    };
    const key = await linkKey("bench", link);
    host.kv.insert(KV_STORE, key, { body: Buffer.from(JSON.stringify(entry)), mode: "overwrite" });
  }
  host.kv.insert(KV_STORE, BACKGROUND_LEASE_KEY, { body: Buffer.from(String(now + HOUR_MS)), mode: "overwrite" });
  const authorization = `Bearer ${await signToken({ sub: "measure", tid: "bench", role: "service", expiresIn: "2h" })}`;
  return (i) => fetch(`${host.url}/v1/links/github/hit-${i % LINK_HITS}`, { headers: { authorization } });
}
