import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { linkPath } from "../../test/links/support.ts";
import { createFaultyKv } from "../../test/support/faulty-kv.ts";
import { type Harness, startHarness } from "../../test/support/harness.ts";
import type { TokenClaims } from "../../test/support/tokens.ts";
import { silentLogger } from "../log.ts";
import type { KvCache } from "../ports/kv.ts";
import type { Sql } from "../ports/sql.ts";
import { createLinkCache } from "./cache.ts";
import type { Link } from "./link.ts";
import { createLinkSync, drainLinkChanges, SYNC_CURSOR_KEY } from "./sync.ts";

const RETENTION = { retentionSeconds: 3600 };

/** Another deployment's cache over its own store: what the drain must bring in line. */
const edgeCache = (kv: KvCache, tenantId: string) =>
  createLinkCache(kv, { tenantId, ttlSeconds: 300, logger: silentLogger });

// On PGlite: one session, so every committed change is below the horizon at once and each drain's
// counts are exact. (On a PostgreSQL shared with other work, its oldest transaction sets the
// horizon; core/links/changes.test.ts proves the reading there.)
describe("draining the change feed into another deployment's KV", () => {
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
  /** A drain of `kv` from scratch, so later tests only see their own changes. */
  const caughtUpKv = async () => {
    const kv = createMemoryKv();
    expect((await drainLinkChanges(harness().sql, kv, RETENTION)).caughtUp).toBe(true);
    return kv;
  };

  it("deletes every entry a change names since the cursor, of that tenant only, and saves the cursor", async () => {
    const kv = await caughtUpKv();
    const north = { sub: "drain-user", tid: "north" };
    const south = { sub: "drain-user", tid: "south" };
    const path = linkPath("github", "drained");
    const [northLink, southLink] = [await link(path, north, { displayName: "n" }), await link(path, south)];
    const kept = await link(linkPath("gitlab", "kept"), north);
    expect((await drainLinkChanges(harness().sql, kv, RETENTION)).changes).toBe(3);
    const cursor = await kv.get(SYNC_CURSOR_KEY);
    for (const [tenant, cached] of [
      ["north", northLink],
      ["south", southLink],
      ["north", kept],
    ] as const) {
      expect(await edgeCache(kv, tenant).write(cached, Date.now())).toBe(true);
    }

    expect((await request("DELETE", path, north)).status).toBe(204);
    expect((await request("PUT", linkPath("gitlab", "kept"), north, { displayName: "renamed" })).status).toBe(200);
    harness().stack.endpoint.resetStatements();
    const report = await drainLinkChanges(harness().sql, kv, RETENTION);
    expect(report).toEqual({ changes: 2, removedByTenant: { north: 2 }, caughtUp: true, failed: false });
    expect(harness().stack.endpoint.statements()).toBe(3); // the feed read, the cached entries' links, the prune
    expect(await edgeCache(kv, "north").read(northLink)).toBeUndefined();
    expect(await edgeCache(kv, "north").read(kept)).toBeUndefined();
    expect(await edgeCache(kv, "south").read(southLink)).toEqual(southLink);
    expect(await kv.get(SYNC_CURSOR_KEY)).not.toBe(cursor);
    harness().stack.endpoint.resetStatements();
    expect(await drainLinkChanges(harness().sql, kv, RETENTION)).toMatchObject({ changes: 0, caughtUp: true });
    expect(harness().stack.endpoint.statements()).toBe(1); // an idle drain: the feed read only
  });

  it("keeps an entry that already equals the link in Postgres: a deployment's own write-back stays", async () => {
    const kv = await caughtUpKv();
    const owner = { sub: "own-write", tid: "own" };
    const created = await link(linkPath("github", "own-write"), owner, { displayName: "mine" });
    expect(await edgeCache(kv, "own").write(created, Date.now())).toBe(true);
    expect(await drainLinkChanges(harness().sql, kv, RETENTION)).toMatchObject({ changes: 1, removedByTenant: {} });
    expect(await edgeCache(kv, "own").read(created)).toEqual(created);
  });

  it("reads at most maxBatches pages of batchSize per drain, one statement each", async () => {
    const kv = await caughtUpKv();
    for (let i = 0; i < 7; i++) await link(linkPath("bounded", `b-${i}`), { sub: `bounded-${i}`, tid: "bounded" });
    harness().stack.endpoint.resetStatements();
    const first = await drainLinkChanges(harness().sql, kv, { ...RETENTION, batchSize: 2, maxBatches: 2 });
    expect(first).toMatchObject({ changes: 4, caughtUp: false, failed: false });
    expect(harness().stack.endpoint.statements()).toBe(2);
    const rest = await drainLinkChanges(harness().sql, kv, { ...RETENTION, batchSize: 2, maxBatches: 5 });
    expect(rest).toMatchObject({ changes: 3, caughtUp: true });
  });

  it("leaves the cursor where it was when KV or the database fails, and the next drain applies the change", async () => {
    const faulty = createFaultyKv(await caughtUpKv());
    const owner = { sub: "fail-user", tid: "fails" };
    const path = linkPath("github", "fails");
    const cached = await link(path, owner);
    await drainLinkChanges(harness().sql, faulty, RETENTION);
    await edgeCache(faulty, "fails").write(cached, Date.now());
    const cursor = await faulty.get(SYNC_CURSOR_KEY);
    expect((await request("DELETE", path, owner)).status).toBe(204);

    const down: Sql = {
      query: async () => Promise.reject(new Error("database down")),
      transaction: async () => Promise.reject(new Error("database down")),
    };
    expect(await drainLinkChanges(down, faulty, RETENTION)).toMatchObject({ failed: true, changes: 0 });
    faulty.setFault("down");
    expect(await drainLinkChanges(harness().sql, faulty, RETENTION)).toMatchObject({ failed: true, changes: 0 });
    faulty.setFault("none");
    expect(await faulty.get(SYNC_CURSOR_KEY)).toBe(cursor);
    expect(await edgeCache(faulty, "fails").read(cached)).toEqual(cached);

    expect(await drainLinkChanges(harness().sql, faulty, RETENTION)).toMatchObject({ changes: 1, failed: false });
    expect(await edgeCache(faulty, "fails").read(cached)).toBeUndefined();
  });
});

describe("the triggers of a drain", () => {
  const settings = { linkCacheTtlSeconds: 300, linkSyncIntervalSeconds: 10 };
  /** A database whose feed is always empty; counts the feed reads. */
  const countingSql = () => {
    let reads = 0;
    const sql = {
      query: async (text: string) => {
        if (text.includes("pg_current_snapshot")) reads++;
        return text.includes("pg_current_snapshot") ? [{ horizon: "5", txid: null }] : [{ pruned: 0 }];
      },
      transaction: async () => [],
    } as unknown as Sql;
    return { sql, reads: () => reads };
  };

  it("drains from requests at most once per interval per deployment, through a lease in KV", async () => {
    let clock = 1_000_000;
    const kv = createMemoryKv(() => clock);
    const { sql, reads } = countingSql();
    const instances = [0, 1].map(() => createLinkSync({ sql, kv, settings }, { now: () => clock }));
    expect(await instances[0]!.drainIfDue()).toMatchObject({ caughtUp: true });
    expect(await instances[1]!.drainIfDue()).toBeUndefined(); // the other instance holds the lease
    clock += 5_000;
    expect(await instances[0]!.drainIfDue()).toBeUndefined();
    expect(reads()).toBe(1);
    clock += 5_000;
    expect(await instances[1]!.drainIfDue()).toMatchObject({ caughtUp: true });
    expect(reads()).toBe(2);
  });

  it("runs one drain at a time per instance, and a drain every interval for a cron's period", async () => {
    let clock = 0;
    const { sql, reads } = countingSql();
    const slept: number[] = [];
    const sync = createLinkSync(
      { sql, kv: createMemoryKv(() => clock), settings },
      {
        now: () => clock,
        sleep: async (ms) => {
          slept.push(ms);
          clock += ms;
        },
      },
    );
    await Promise.all([sync.drain(), sync.drain()]);
    expect(reads()).toBe(1);
    await sync.runFor(60_000);
    expect(reads()).toBe(1 + 6); // at 0, 10, 20, 30, 40 and 50 s
    expect(slept).toEqual([10_000, 10_000, 10_000, 10_000, 10_000]);
  });
});
