// The sync on a store whose reads lag others' writes (Workers KV's locations, modelled by
// test/support/located-kv.ts): the cron's location keeps what it read for up to 60 s, absences
// included, while a lookup at another location fills the entry. What the sync reads there proves
// nothing then, so for a recent change it deletes, or writes again from Postgres, all the same.
import { describe, expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { linkPath } from "../../test/links/support.ts";
import { edgeCache, useSyncHarness } from "../../test/links/sync-harness.ts";
import { countingKv } from "../../test/support/link-feed.ts";
import { locatedKv } from "../../test/support/located-kv.ts";
import type { KvCache } from "../ports/kv.ts";
import { decodeEntry } from "./cache.ts";
import { linkKey } from "./kv-keys.ts";
import type { Link } from "./link.ts";
import { syncLinkCache } from "./sync.ts";

describe("syncing the change feed into a store whose reads lag others' writes (Workers KV's locations)", () => {
  const { harness, request, link } = useSyncHarness();

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
