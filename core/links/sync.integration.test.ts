import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { linkPath } from "../../test/links/support.ts";
import { createFaultyKv } from "../../test/support/faulty-kv.ts";
import { type Harness, startHarness } from "../../test/support/harness.ts";
import { countingKv, endlessFeedSql } from "../../test/support/link-feed.ts";
import { locatedKv } from "../../test/support/located-kv.ts";
import { createInvocationBudget } from "../background/invocation-budget.ts";
import { type Logger, silentLogger } from "../log.ts";
import type { KvCache } from "../ports/kv.ts";
import type { Sql } from "../ports/sql.ts";
import { createLinkCache, decodeEntry } from "./cache.ts";
import { FEED_START, parseFeedCursor } from "./changes.ts";
import { linkKey } from "./kv-keys.ts";
import type { Link } from "./link.ts";
import { unlinkAccount } from "./repository.ts";
import { SYNC_CURSOR_KEY, syncLinkCache } from "./sync.ts";

/** Another deployment's cache over its own store: what the sync must bring in line. */
const edgeCache = (kv: KvCache, tenantId: string) =>
  createLinkCache(kv, { tenantId, ttlSeconds: 300, logger: silentLogger });

// On PGlite: one session, so every committed change is below the horizon at once and each sync's
// counts are exact. (On a PostgreSQL shared with other work, its oldest transaction sets the
// horizon; core/links/changes.integration.test.ts proves the reading there.)
describe("syncing the change feed into another deployment's KV", () => {
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

  it("deletes every entry a change names since the cursor, of that tenant only, and saves the cursor", async () => {
    const kv = await caughtUpKv();
    const north = { sub: "sync-user", tid: "north" };
    const south = { sub: "sync-user", tid: "south" };
    const path = linkPath("github", "synced");
    const [northLink, southLink] = [await link(path, north, { displayName: "n" }), await link(path, south)];
    const kept = await link(linkPath("gitlab", "kept"), north);
    expect((await syncLinkCache(harness().sql, kv)).changes).toBe(3);
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
    const report = await syncLinkCache(harness().sql, kv);
    expect(report).toEqual({ changes: 2, removedByTenant: { north: 2 }, caughtUp: true, failed: false });
    expect(harness().stack.endpoint.statements()).toBe(2); // the feed read, the cached entries' links
    expect(await edgeCache(kv, "north").read(northLink)).toBeUndefined();
    expect(await edgeCache(kv, "north").read(kept)).toBeUndefined();
    expect(await edgeCache(kv, "south").read(southLink)).toEqual(southLink);
    expect(await kv.get(SYNC_CURSOR_KEY)).not.toBe(cursor);
    harness().stack.endpoint.resetStatements();
    expect(await syncLinkCache(harness().sql, kv)).toMatchObject({ changes: 0, caughtUp: true });
    expect(harness().stack.endpoint.statements()).toBe(1); // an idle sync: the feed read only
  });

  it("keeps an entry that already equals the link in Postgres: a deployment's own write-back stays", async () => {
    const kv = await caughtUpKv();
    const owner = { sub: "own-write", tid: "own" };
    const created = await link(linkPath("github", "own-write"), owner, { displayName: "mine" });
    expect(await edgeCache(kv, "own").write(created, Date.now())).toBe(true);
    expect(await syncLinkCache(harness().sql, kv)).toMatchObject({ changes: 1, removedByTenant: {} });
    expect(await edgeCache(kv, "own").read(created)).toEqual(created);
  });

  // The race no sync closes (docs/links.md, "The bound"): a lookup read the link just before its
  // unlink, and its copy lands after the sync applied the unlink. Only its own TTL ends it.
  it("removes a write-back of a link read before its unlink that lands before the sync; one landing after stays until its readAt + TTL", async () => {
    const kv = await caughtUpKv();
    const owner = { sub: "late-fill", tid: "late-fill" };
    const path = linkPath("github", "late-fill");
    const linked = await link(path, owner);
    const readAt = Date.now(); // the lookup's read of Postgres: the link is there
    expect((await request("DELETE", path, owner)).status).toBe(204); // through another deployment

    expect(await edgeCache(kv, "late-fill").write(linked, readAt)).toBe(true);
    expect(await syncLinkCache(harness().sql, kv)).toMatchObject({ removedByTenant: { "late-fill": 1 } });
    expect(await edgeCache(kv, "late-fill").read(linked)).toBeUndefined();

    expect(await edgeCache(kv, "late-fill").write(linked, readAt)).toBe(true); // after the sync
    expect(await syncLinkCache(harness().sql, kv)).toMatchObject({ changes: 0 });
    const readerAt = (ms: number) =>
      createLinkCache(kv, { tenantId: "late-fill", ttlSeconds: 300, logger: silentLogger, now: () => readAt + ms });
    expect(await readerAt(299_999).read(linked)).toEqual(linked);
    expect(await readerAt(300_000).read(linked)).toBeUndefined();
  });

  // Fastly: two instances may both take the lease and sync one store at once. Each saves only the
  // cursor of pages it applied itself, so the cursor may step back (a replay), never past a change.
  it("two syncs of one store at once: each applies every change it passes, whichever saves its cursor last", async () => {
    const kv = await caughtUpKv();
    const owner = { sub: "twice", tid: "twice" };
    const paths = ["one", "two", "three"].map((id) => linkPath(id, "twice"));
    const linked: Link[] = [];
    for (const path of paths) linked.push(await link(path, owner));
    await syncLinkCache(harness().sql, kv);
    for (const cached of linked) expect(await edgeCache(kv, "twice").write(cached, Date.now())).toBe(true);
    for (const path of paths.slice(0, 2)) expect((await request("DELETE", path, owner)).status).toBe(204);
    const before = await kv.get(SYNC_CURSOR_KEY);

    // The slow instance read the cursor, then stalls on its first page's KV read.
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const slowKv: KvCache = {
      ...kv,
      getMany: undefined,
      get: async (key) => (key !== SYNC_CURSOR_KEY && reads++ === 0 && (await stalled), kv.get(key)),
    };
    const slow = syncLinkCache(harness().sql, slowKv, { batchSize: 1 });
    while (reads === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const fast = await syncLinkCache(harness().sql, kv);
    expect(fast).toMatchObject({ changes: 2, removedByTenant: { twice: 2 }, caughtUp: true });
    const fastCursor = await kv.get(SYNC_CURSOR_KEY);
    // Meanwhile the third link goes, then the slow instance goes on to the end, this change too.
    expect((await request("DELETE", paths[2]!, owner)).status).toBe(204);
    release();
    expect(await slow).toMatchObject({ changes: 3, caughtUp: true, failed: false });
    for (const cached of linked) expect(await edgeCache(kv, "twice").read(cached)).toBeUndefined();
    expect(new Set([before, fastCursor]).has(await kv.get(SYNC_CURSOR_KEY))).toBe(false);
    expect(await syncLinkCache(harness().sql, kv)).toMatchObject({ changes: 0, caughtUp: true });
  });

  it("POST /v1/admin/links/sync syncs this deployment's KV and answers the removals of the admin's tenant only", async () => {
    const sync = async (tid: string) => {
      const response = await request("POST", "/v1/admin/links/sync", { sub: "ops", tid, role: "admin" });
      expect(response.status).toBe(200);
      return response.json();
    };
    const [east, west] = [
      { sub: "route-user", tid: "east" },
      { sub: "route-user", tid: "west" },
    ];
    const path = linkPath("github", "route-synced");
    const [eastLink, westLink] = [await link(path, east), await link(path, west)];
    expect(await sync("east")).toMatchObject({ caughtUp: true });
    // Unlinked through another deployment: this one's entries stay for its sync to remove.
    for (const [{ tid, sub }, linked] of [
      [east, eastLink],
      [west, westLink],
    ] as const) {
      expect(await unlinkAccount(harness().sql, tid, linked, sub)).toBe(true);
      expect(await edgeCache(harness().kv, tid).write(linked, Date.now())).toBe(true);
    }
    expect(await sync("east")).toEqual({ removed: 1, caughtUp: true });
    expect(await edgeCache(harness().kv, "west").read(westLink)).toBeUndefined();
  });

  it("stops before the invocation's KV or SQL budget would run out, and the next sync resumes there", async () => {
    const kv = await caughtUpKv();
    for (let i = 0; i < 12; i++) await link(linkPath("bounded", `b-${i}`), { sub: `bounded-${i}`, tid: "bounded" });
    const counted = countingKv(kv);
    // The cursor's get, then pages that fit what is left: a page of n may need n gets, n deletes
    // and the cursor's put. Of 10 operations: 1, then pages of 2, 2, 2 and 1 (2 gets each, none
    // cached so no delete), and the cursor's one put where the sync ends.
    const kvBudget = createInvocationBudget({ kvOperations: 10 }, Date.now() + 30_000);
    const first = await syncLinkCache(harness().sql, counted.kv, { batchSize: 2, budget: kvBudget });
    expect(first).toMatchObject({ changes: 7, caughtUp: false, failed: false, outOf: "budget" });
    expect(counted.calls()).toBe(9);
    expect(counted.puts(SYNC_CURSOR_KEY)).toBe(1);
    harness().stack.endpoint.resetStatements();
    const sqlBudget = createInvocationBudget({ sqlStatements: 3 }, Date.now() + 30_000);
    const second = await syncLinkCache(harness().sql, kv, { batchSize: 2, budget: sqlBudget });
    expect(second).toMatchObject({ changes: 4, caughtUp: false, outOf: "budget" }); // two pages of 2 statements: 1 left
    expect(harness().stack.endpoint.statements()).toBeLessThanOrEqual(3);
    const rest = await syncLinkCache(harness().sql, kv, { batchSize: 2 });
    expect(rest).toMatchObject({ changes: 1, caughtUp: true });
  });

  it("starts no page once its time is up, and the next sync resumes at the cursor", async () => {
    const kv = await caughtUpKv();
    await link(linkPath("late", "late-1"), { sub: "late", tid: "late" });
    const cursor = await kv.get(SYNC_CURSOR_KEY);
    const spent = createInvocationBudget({}, Date.now() - 1);
    expect(await syncLinkCache(harness().sql, kv, { budget: spent })).toMatchObject({ changes: 0, outOf: "time" });
    expect(await kv.get(SYNC_CURSOR_KEY)).toBe(cursor);
    expect(await syncLinkCache(harness().sql, kv)).toMatchObject({ changes: 1, caughtUp: true });
  });

  it("leaves the cursor where it was when KV or the database fails, and the next sync applies the change", async () => {
    const faulty = createFaultyKv(await caughtUpKv());
    const owner = { sub: "fail-user", tid: "fails" };
    const path = linkPath("github", "fails");
    const cached = await link(path, owner);
    await syncLinkCache(harness().sql, faulty);
    await edgeCache(faulty, "fails").write(cached, Date.now());
    const cursor = await faulty.get(SYNC_CURSOR_KEY);
    expect((await request("DELETE", path, owner)).status).toBe(204);

    const down: Sql = {
      query: async () => Promise.reject(new Error("database down")),
      transaction: async () => Promise.reject(new Error("database down")),
    };
    expect(await syncLinkCache(down, faulty)).toMatchObject({ failed: true, changes: 0 });
    faulty.setFault("down");
    expect(await syncLinkCache(harness().sql, faulty)).toMatchObject({ failed: true, changes: 0 });
    faulty.setFault("none");
    expect(await faulty.get(SYNC_CURSOR_KEY)).toBe(cursor);
    expect(await edgeCache(faulty, "fails").read(cached)).toEqual(cached);

    expect(await syncLinkCache(harness().sql, faulty)).toMatchObject({ changes: 1, failed: false });
    expect(await edgeCache(faulty, "fails").read(cached)).toBeUndefined();
  });

  // Planted by whoever else writes the store: taken as they stand, one past the horizon would make
  // every sync "catch up" with nothing applied, an overflowing one every sync fail.
  for (const [planted, reason] of [
    ["18446744073709551615:0", "ahead of the feed's horizon"],
    ["18446744073709551616:0", "unreadable"],
    ["1:9223372036854775808", "unreadable"],
    ["-1:0", "unreadable"],
    ["soon", "unreadable"],
  ] as const) {
    it(`discards a cursor ${planted} (${reason}) with one warning and syncs again from the feed's start`, async () => {
      const kv = await caughtUpKv();
      const owner = { sub: "planted-cursor-user", tid: "planted" };
      const path = linkPath("github", `planted-${crypto.randomUUID()}`);
      const cached = await link(path, owner);
      await edgeCache(kv, "planted").write(cached, Date.now());
      expect((await request("DELETE", path, owner)).status).toBe(204);
      await kv.put(SYNC_CURSOR_KEY, planted, { ttlSeconds: 3600 });

      const warnings: { event: string; fields: Record<string, unknown> }[] = [];
      const logger: Logger = {
        log: (level, event, fields = {}) => void (level === "warn" && warnings.push({ event, fields })),
      };
      const report = await syncLinkCache(harness().sql, kv, { logger });
      expect(report).toMatchObject({ caughtUp: true, failed: false });
      expect(report.removedByTenant.planted).toBe(1);
      expect(report.changes).toBeGreaterThanOrEqual(2); // from the feed's start: the link and unlink among them
      expect(await edgeCache(kv, "planted").read(cached)).toBeUndefined();
      expect(warnings).toEqual([{ event: "link_sync_cursor_discarded", fields: { reason, restartAt: FEED_START } }]);
      // The cursor saved is the feed's own: the next sync reads from there, warning no more.
      expect(parseFeedCursor((await kv.get(SYNC_CURSOR_KEY))!)).toBeDefined();
      expect(await syncLinkCache(harness().sql, kv, { logger })).toMatchObject({ changes: 0, caughtUp: true });
      expect(warnings).toHaveLength(1);
    });
  }

  it("saves the cursor at most once a second while it syncs and where it stops, and after a failure what was applied", async () => {
    let clock = 0;
    const { sql: endless, last } = endlessFeedSql();
    let reads = 0;
    const sql: Sql = {
      ...endless,
      async query(text, params) {
        clock += 100; // each statement takes 100 ms
        if (text.includes("pg_current_snapshot") && ++reads === 40) throw new Error("database gone");
        return endless.query(text, params);
      },
    };
    const counted = countingKv(createMemoryKv(() => clock));
    const budget = createInvocationBudget({}, 10_000, () => clock);
    const report = await syncLinkCache(sql, counted.kv, { batchSize: 10, budget });
    expect(report).toMatchObject({ failed: true, changes: 390 });
    expect(counted.puts(SYNC_CURSOR_KEY)).toBe(4); // after 1, 2 and 3 s, then at the failure
    expect(await counted.kv.get(SYNC_CURSOR_KEY)).toBe(`${last()}:${last()}`);
    expect(last()).toBe(390);
  });
  // Workers KV: the cron's location keeps what it read for up to 60 s, absences included, while
  // a lookup at another location fills the entry. What the sync reads there proves nothing then.
  describe("on a store whose reads lag others' writes (Workers KV's locations)", () => {
    const lagging = async (tenantId: string) => {
      const central = createMemoryKv();
      const located = locatedKv(central);
      const [cron, user] = [located.at("cron"), located.at("user")];
      expect((await syncLinkCache(harness().sql, cron)).caughtUp).toBe(true);
      const entryIn = async (kv: KvCache, target: Link) => {
        const text = await kv.get(await linkKey(tenantId, target));
        return text === null ? undefined : decodeEntry(text);
      };
      return { central, cron, user, entryIn };
    };

    it("an unlink reaches an entry filled elsewhere after the sync's location read it absent", async () => {
      const { central, cron, user, entryIn } = await lagging("lag-absent");
      const owner = { sub: "lag-owner", tid: "lag-absent" };
      const path = linkPath("github", "lag-absent");
      const linked = await link(path, owner); // through another deployment
      await syncLinkCache(harness().sql, cron); // reads the link's key at the cron's location: absent
      // A lookup at another location misses and writes its copy back: the cron's location still
      // remembers the absence it read.
      expect(await edgeCache(user, "lag-absent").write(linked, Date.now())).toBe(true);
      expect(await cron.get(await linkKey("lag-absent", linked))).toBeNull();

      expect((await request("DELETE", path, owner)).status).toBe(204); // through another deployment
      expect(await syncLinkCache(harness().sql, cron)).toMatchObject({ caughtUp: true, failed: false });
      expect(await entryIn(central, linked)).toBeUndefined(); // gone: every location drops it within 60 s
    });

    it("a relink to another user in quick succession leaves no copy of the first owner, wherever it was filled", async () => {
      const { central, cron, user, entryIn } = await lagging("lag-relink");
      const [first, second] = [
        { sub: "lag-first", tid: "lag-relink" },
        { sub: "lag-second", tid: "lag-relink" },
      ];
      const path = linkPath("github", "lag-relink");
      const linked = await link(path, first);
      await syncLinkCache(harness().sql, cron);
      expect(await edgeCache(user, "lag-relink").write(linked, Date.now())).toBe(true);
      expect((await request("DELETE", path, first)).status).toBe(204);
      const relinked = await link(path, second);
      expect(await syncLinkCache(harness().sql, cron)).toMatchObject({ caughtUp: true, failed: false });
      expect((await entryIn(central, linked))?.link.userId).not.toBe(first.sub);
      expect(relinked.userId).toBe(second.sub);
    });

    it("a rename and its undoing reach an entry filled between them, though the sync's location reads the right one", async () => {
      const { central, cron, user, entryIn } = await lagging("lag-equal");
      const owner = { sub: "lag-renamer", tid: "lag-equal" };
      const path = linkPath("github", "lag-equal");
      const first = await link(path, owner, { displayName: "first" });
      // Looked up at the cron's own location: it holds, and will read, "first".
      expect(await edgeCache(cron, "lag-equal").write(first, Date.now())).toBe(true);
      await syncLinkCache(harness().sql, cron);

      const second = await link(path, owner, { displayName: "second" });
      expect(await edgeCache(user, "lag-equal").write(second, Date.now())).toBe(true);
      await link(path, owner, { displayName: "first" }); // back, before the next sync
      expect(await syncLinkCache(harness().sql, cron)).toMatchObject({ caughtUp: true, failed: false });
      expect((await entryIn(central, first))?.link.displayName ?? "none").not.toBe("second");
    });

    it("keeps an entry that equals Postgres where it reads one: the deployment's own write-back stays a hit", async () => {
      const { central, cron, entryIn } = await lagging("lag-own");
      const owner = { sub: "lag-own", tid: "lag-own" };
      const created = await link(linkPath("github", "lag-own"), owner, { displayName: "mine" });
      expect(await edgeCache(cron, "lag-own").write(created, Date.now())).toBe(true);
      expect(await syncLinkCache(harness().sql, cron)).toMatchObject({ changes: 1, removedByTenant: {} });
      expect(await edgeCache(central, "lag-own").read(created)).toEqual(created);
      expect((await entryIn(central, created))?.tenantId).toBe("lag-own");
    });

    it("trusts its reads for changes older than the lag: an absent entry costs no KV write", async () => {
      const { cron } = await lagging("lag-old");
      const owner = { sub: "lag-old", tid: "lag-old" };
      for (let i = 0; i < 3; i++) await link(linkPath(`old${i}`, "lag-old"), owner);
      await harness().sql.query(
        "UPDATE link_changes SET changed_at = changed_at - interval '10 minutes' WHERE tenant_id = 'lag-old'",
      );
      const counted = countingKv(cron, { bulk: true });
      expect(await syncLinkCache(harness().sql, counted.kv)).toMatchObject({ changes: 3, caughtUp: true });
      expect(counted.calls()).toBe(3); // the cursor's get, one bulk read, the cursor's put
    });
  });
});
