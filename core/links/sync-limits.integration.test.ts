// Where a sync stops and how the next one resumes: the invocation's budget and time, a failing
// store or database, a cursor someone else planted, and how often the cursor is saved.
import { describe, expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { linkPath } from "../../test/links/support.ts";
import { edgeCache, useSyncHarness } from "../../test/links/sync-harness.ts";
import { createFaultyKv } from "../../test/support/faulty-kv.ts";
import { countingKv, endlessFeedSql } from "../../test/support/link-feed.ts";
import { createInvocationBudget } from "../background/invocation-budget.ts";
import type { Logger } from "../log.ts";
import type { Sql } from "../ports/sql.ts";
import { FEED_START, parseFeedCursor } from "./changes.ts";
import { SYNC_CURSOR_KEY, syncLinkCache } from "./sync.ts";

describe("where a sync of the change feed stops, and where the next one resumes", () => {
  const { harness, request, link, caughtUpKv } = useSyncHarness();

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
});
