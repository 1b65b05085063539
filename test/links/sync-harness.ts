// What the sync suites share (core/links/sync*.integration.test.ts): one app on PGlite, whose
// link routes write the change feed, and the caches of "another deployment" the sync brings in line.
// On PGlite: one session, so every committed change is below the horizon at once and each sync's
// counts are exact. (On a PostgreSQL shared with other work, its oldest transaction sets the
// horizon; core/links/changes.integration.test.ts proves the reading there.)
import { afterAll, beforeAll, expect } from "vitest";
import { createLinkCache } from "../../core/links/cache.ts";
import type { Link } from "../../core/links/link.ts";
import { syncLinkCache } from "../../core/links/sync.ts";
import { silentLogger } from "../../core/log.ts";
import type { KvCache } from "../../core/ports/kv.ts";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { type Harness, startHarness } from "../support/harness.ts";

/** Another deployment's cache over its own store: what the sync must bring in line. */
export const edgeCache = (kv: KvCache, tenantId: string) =>
  createLinkCache(kv, { tenantId, ttlSeconds: 300, logger: silentLogger });

/** Starts the app before the suite's tests and stops it after them; its helpers. */
export function useSyncHarness() {
  let current: Harness | undefined;
  beforeAll(async () => {
    current = await startHarness({ backend: "pglite" });
  }, 120_000);
  afterAll(async () => {
    await current?.close();
  });
  const harness = () => current!;
  const request = (method: string, path: string, as: TokenClaims, body?: unknown) =>
    harness().request(path, { method, as, body });
  const link = async (path: string, as: TokenClaims, body?: unknown) =>
    (await (await request("PUT", path, as, body)).json()) as Link;
  /** A sync of `kv` from scratch, so later tests only see their own changes. */
  const caughtUpKv = async () => {
    const kv = createMemoryKv();
    expect((await syncLinkCache(harness().sql, kv)).caughtUp).toBe(true);
    return kv;
  };
  return { harness, request, link, caughtUpKv };
}
