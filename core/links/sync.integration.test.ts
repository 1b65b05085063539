// The sync of the change feed (sync.ts) applied to another deployment's KV: what it deletes, what
// it keeps, two syncs at once, and the route an outside scheduler calls.
import { describe, expect, it } from "vitest";
import { linkPath } from "../../test/links/support.ts";
import { edgeCache, useSyncHarness } from "../../test/links/sync-harness.ts";
import { silentLogger } from "../log.ts";
import type { KvCache } from "../ports/kv.ts";
import { createLinkCache } from "./cache.ts";
import type { Link } from "./link.ts";
import { unlinkAccount } from "./repository.ts";
import { SYNC_CURSOR_KEY, syncLinkCache } from "./sync.ts";

describe("syncing the change feed into another deployment's KV", () => {
  const { harness, request, link, caughtUpKv } = useSyncHarness();

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

  // The race no sync closes: a copy of a link read just before its unlink lands after the sync
  // applied the unlink. A lookup removes its own (write-back.ts); any other copy only its TTL ends.
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
});
