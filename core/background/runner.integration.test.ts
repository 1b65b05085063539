import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { type Harness, startHarness } from "../../test/support/harness.ts";
import { countingKv, emptyFeedSql, endlessFeedSql } from "../../test/support/link-feed.ts";
import { CAPABILITY_JOBS } from "../capabilities.ts";
import { createLinkCache } from "../links/cache.ts";
import { LINK_JOBS, linkSyncJob, pruneLinkChangesJob } from "../links/jobs.ts";
import { SYNC_CURSOR_KEY, syncLinkCache } from "../links/sync.ts";
import { silentLogger } from "../log.ts";
import type { Sql } from "../ports/sql.ts";
import { parseSettings } from "../settings/settings.ts";
import type { BackgroundReport } from "./job.ts";
import { createBackground } from "./runner.ts";

const settings = parseSettings({ AUTH_SECRET: "s".repeat(32) });
const synced = (report: BackgroundReport | undefined) => report?.outcomes.get(linkSyncJob);
const EVERY_MINUTE_JOBS = CAPABILITY_JOBS.filter((job) => job.cadence === "every-minute");

describe("the jobs the capabilities register", () => {
  it("are the link sync on every run, and pruning the feed and expiring both kinds of Idempotency-Key every minute", () => {
    expect(CAPABILITY_JOBS.map((job) => [job.name, job.cadence])).toEqual([
      ["links/sync", "every-run"],
      ["links/prune-changes", "every-minute"],
      ["assets/expire-idempotency-keys", "every-minute"],
      ["documents/expire-idempotency-keys", "every-minute"],
    ]);
  });
});

describe("removing what has expired", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ backend: "pglite" });
  }, 120_000);
  afterAll(() => harness?.close());

  const oldChanges = (count: number) =>
    harness.sql.query(
      `INSERT INTO link_changes (tenant_id, provider, external_account_id, changed_at)
       SELECT 'old', 'github', 'a-' || n, now() - interval '2 hours' FROM generate_series(1, $1::int) AS n`,
      [String(count)],
    );
  const expiredKeys = (count: number) =>
    harness.sql.query(
      `INSERT INTO documents (tenant_id, contract_id, idempotency_key, request_fingerprint, idempotency_expires_at)
       SELECT 'old', 'C', 'k-' || n, 'f', now() - interval '1 second' FROM generate_series(1, $1::int) AS n`,
      [String(count)],
    );
  const count = async (query: string) => Number((await harness.sql.query(query))[0]?.n);
  /** One run of the every-minute jobs, on a fresh instance (so they are due), with `limits`. */
  const runOnce = async (sqlStatements?: number, runTimeMs = 30_000) => {
    const background = createBackground(
      { sql: harness.sql, kv: createMemoryKv(), settings, logger: silentLogger },
      { jobs: EVERY_MINUTE_JOBS, batchSize: 10, runTimeMs, limits: { sqlStatements } },
    );
    const { outcomes } = await background.run();
    return Object.fromEntries([...outcomes].map(([job, outcome]) => [job.name, outcome]));
  };

  it("prunes old changes and clears expired keys batch by batch, one statement each, to the end", async () => {
    await oldChanges(25);
    await expiredKeys(12);
    await harness.sql.query(
      "INSERT INTO link_changes (tenant_id, provider, external_account_id) VALUES ('new', 'github', 'recent')",
    );
    harness.stack.endpoint.resetStatements();
    expect(await runOnce(40)).toEqual({
      "links/prune-changes": { done: true, removed: 25 },
      "assets/expire-idempotency-keys": { done: true, removed: 0 },
      "documents/expire-idempotency-keys": { done: true, removed: 12 },
    });
    expect(harness.stack.endpoint.statements()).toBe(3 + 1 + 2); // 10, 10, 5 changes; no asset key; 10, 2 keys
    expect(await count("SELECT count(*) AS n FROM link_changes")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM documents WHERE idempotency_key IS NOT NULL")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM documents")).toBe(12); // the documents stay
  });

  it("stops when the run's share of statements or time is spent, and the next run goes on", async () => {
    await oldChanges(25);
    // A quarter of 8 statements: two batches of the feed's pruning, nothing else.
    expect(await runOnce(8)).toMatchObject({
      "links/prune-changes": { done: false, removed: 20, outOf: "budget" },
      "assets/expire-idempotency-keys": { done: false, removed: 0 },
    });
    expect(await runOnce(undefined, -1)).toMatchObject({
      "links/prune-changes": { done: false, removed: 0, outOf: "time" },
    });
    expect(await runOnce()).toMatchObject({ "links/prune-changes": { done: true, removed: 5 } });
  });

  it("keeps a change while an entry it made stale may still be served, though the change began earlier than the entry's read", async () => {
    const ttlSeconds = 3600; // the retention's floor: no hour of margin above the cache lifetime
    const hourly = parseSettings({ AUTH_SECRET: "s".repeat(32), LINK_CACHE_TTL_SECONDS: String(ttlSeconds) });
    const kv = createMemoryKv();
    expect((await syncLinkCache(harness.sql, kv)).caughtUp).toBe(true); // a deployment synced before the unlink
    // An unlink whose statement began (changed_at) just past the retention ago and waited on a
    // lock; a lookup that read the link 3 s after that began cached it, fresh for 2 s more.
    await harness.sql.query(
      `INSERT INTO link_changes (tenant_id, provider, external_account_id, changed_at)
       VALUES ('held', 'github', 'held', now() - make_interval(secs => $1::int + 1))`,
      [String(ttlSeconds)],
    );
    const link = {
      provider: "github",
      externalAccountId: "held",
      userId: "u",
      displayName: null,
      linkedAt: "2030-01-01T00:00:00.000Z",
    };
    const cache = createLinkCache(kv, { tenantId: "held", ttlSeconds, logger: silentLogger });
    expect(await cache.write(link, Date.now() - (ttlSeconds - 2) * 1000)).toBe(true);
    expect(await cache.read(link)).toEqual(link);

    // The every-minute pruning runs before the sync, in the same run.
    const background = createBackground(
      { sql: harness.sql, kv, settings: hourly, logger: silentLogger },
      { jobs: LINK_JOBS },
    );
    await background.run();
    expect(await cache.read(link)).toBeUndefined();
  });

  it("prunes with the longest cache lifetime a setting may give: the bound is one Postgres honours", async () => {
    const longest = parseSettings({ AUTH_SECRET: "s".repeat(32), LINK_CACHE_TTL_SECONDS: "2147483647" });
    const background = createBackground(
      { sql: harness.sql, kv: createMemoryKv(), settings: longest, logger: silentLogger },
      { jobs: [pruneLinkChangesJob] },
    );
    const { outcomes } = await background.run();
    expect(outcomes.get(pruneLinkChangesJob)).toEqual({ done: true, removed: 0 });
  });
});

describe("the triggers of a run", () => {
  it("spends at most the platform's KV operations in one cron run, then stops; the cursor keeps its place", async () => {
    let clock = 0;
    const { sql, last } = endlessFeedSql();
    const counted = countingKv(createMemoryKv(() => clock));
    const sync = createBackground(
      { sql, kv: counted.kv, settings, logger: silentLogger },
      {
        jobs: CAPABILITY_JOBS,
        now: () => clock,
        sleep: async (ms) => void (clock += ms),
        limits: { kvOperations: 1_000 },
      },
    );
    await sync.runFor(60_000);
    expect(counted.calls()).toBeLessThanOrEqual(1_000);
    expect(counted.calls()).toBeGreaterThan(990); // back to back, not one sync per interval
    expect(clock).toBe(0); // no sleep: the budget, not the schedule, ended it
    expect(await counted.kv.get(SYNC_CURSOR_KEY)).toBe(`${last()}:${last()}`); // every page read was applied
  });

  it("reads a page's entries in bulk where the store can, one operation per 100 keys: a cron run syncs far more", async () => {
    let clock = 0;
    const { sql, last } = endlessFeedSql();
    const counted = countingKv(
      createMemoryKv(() => clock),
      { bulk: true },
    );
    const sync = createBackground(
      { sql, kv: counted.kv, settings, logger: silentLogger },
      {
        jobs: CAPABILITY_JOBS,
        now: () => clock,
        sleep: async (ms) => void (clock += ms),
        limits: { kvOperations: 1_000 },
      },
    );
    await sync.runFor(60_000);
    expect(counted.calls()).toBeLessThanOrEqual(1_000);
    // Every page reserves a delete per change, none needed: about 900 pages of 100, then smaller ones.
    expect(last()).toBeGreaterThan(89_000);
    expect(await counted.kv.get(SYNC_CURSOR_KEY)).toBe(`${last()}:${last()}`);
  });

  it("runs the every-minute jobs before the sync, so a sync that never catches up still prunes", async () => {
    const { sql, statements } = endlessFeedSql();
    const sync = createBackground(
      { sql, kv: createMemoryKv(), settings, logger: silentLogger },
      { jobs: CAPABILITY_JOBS, runTimeMs: 50, batchSize: 10 },
    );
    expect(synced(await sync.run())).toMatchObject({ caughtUp: false, outOf: "time" });
    // The feed's pruning, then the assets' and the documents' keys.
    expect(statements.slice(0, 3)).toEqual(["prune", "other", "other"]);
    expect(statements.slice(3).every((statement) => statement === "feed")).toBe(true);
    await sync.run();
    expect(statements.filter((statement) => statement === "prune")).toHaveLength(1); // once a minute
  });

  it("runs the every-minute jobs once a minute per deployment, not per instance: one instance per request on Fastly", async () => {
    let clock = 1_000_000;
    const kv = createMemoryKv(() => clock);
    const { sql, statements } = endlessFeedSql();
    const instance = () =>
      createBackground(
        { sql, kv, settings, logger: silentLogger },
        { jobs: CAPABILITY_JOBS, now: () => clock, limits: { sqlStatements: 12 } },
      );
    const prunes = () => statements.filter((statement) => statement === "prune").length;
    await instance().run();
    expect(prunes()).toBe(1);
    clock += 30_000;
    await instance().run(); // a fresh instance reads the deployment's due time
    expect(prunes()).toBe(1);
    clock += 30_000;
    await instance().run();
    expect(prunes()).toBe(2);
  });

  it("syncs from requests at most once per interval per deployment, through a lease in KV", async () => {
    let clock = 1_000_000;
    const kv = createMemoryKv(() => clock);
    const { sql, reads } = emptyFeedSql();
    const instances = [0, 1].map(() =>
      createBackground({ sql, kv, settings, logger: silentLogger }, { jobs: CAPABILITY_JOBS, now: () => clock }),
    );
    expect(synced(await instances[0]!.runIfDue())).toMatchObject({ caughtUp: true });
    expect(await instances[1]!.runIfDue()).toBeUndefined(); // the other instance holds the lease
    clock += 5_000;
    expect(await instances[0]!.runIfDue()).toBeUndefined();
    expect(reads()).toBe(1);
    clock += 5_000;
    expect(synced(await instances[1]!.runIfDue())).toMatchObject({ caughtUp: true });
    expect(reads()).toBe(2);
  });

  it("holds the lease for an interval longer than the store's shortest lifetime: a fresh instance waits it out", async () => {
    let clock = 1_000_000;
    const kv = createMemoryKv(() => clock);
    const { sql, reads } = emptyFeedSql();
    const every5Minutes = parseSettings({ AUTH_SECRET: "s".repeat(32), LINK_SYNC_INTERVAL_SECONDS: "300" });
    // A fresh instance per request, as Compute may start: only the lease in KV holds it back.
    const instance = () =>
      createBackground(
        { sql, kv, settings: every5Minutes, logger: silentLogger },
        { jobs: CAPABILITY_JOBS, now: () => clock },
      );
    expect(synced(await instance().runIfDue())).toMatchObject({ caughtUp: true });
    clock += 90_000;
    expect(await instance().runIfDue()).toBeUndefined();
    expect(reads()).toBe(1);
    clock += 210_000;
    expect(synced(await instance().runIfDue())).toMatchObject({ caughtUp: true });
    expect(reads()).toBe(2);
  });

  it("does not sync again after a response when the request itself synced: one invocation, one budget", async () => {
    let clock = 1_000_000;
    const { sql, reads } = emptyFeedSql();
    const sync = createBackground(
      { sql, kv: createMemoryKv(() => clock), settings, logger: silentLogger },
      { jobs: CAPABILITY_JOBS, now: () => clock },
    );
    expect(await sync.runNow(linkSyncJob)).toMatchObject({ caughtUp: true }); // POST /v1/admin/links/sync
    expect(await sync.runIfDue()).toBeUndefined();
    expect(reads()).toBe(1);
    clock += 10_000;
    expect(synced(await sync.runIfDue())).toMatchObject({ caughtUp: true });
  });

  it("does not sync after a response when the request spent the invocation's budget itself (a resync on Compute)", async () => {
    const { sql, reads } = emptyFeedSql();
    let statements = 0;
    const counted = { ...sql, query: (text: string) => (statements++, sql.query(text)) } as Sql;
    const sync = createBackground(
      { sql: counted, kv: createMemoryKv(), settings, logger: silentLogger },
      { jobs: CAPABILITY_JOBS, limits: { sqlStatements: 28 } },
    );
    // POST /v1/admin/links/resync: as many statements as its budget allows.
    const budget = sync.invocationBudget();
    const metered = budget.meterSql(counted);
    while (budget.sqlLeft() > 0) await metered.query("SELECT 1");
    expect(await sync.runIfDue()).toBeUndefined();
    expect(reads()).toBe(0);
    expect(statements).toBe(28);
  });

  it("runs one run at a time per instance, and a run every interval for a cron's period", async () => {
    let clock = 0;
    const { sql, reads } = emptyFeedSql();
    const slept: number[] = [];
    const sync = createBackground(
      { sql, kv: createMemoryKv(() => clock), settings, logger: silentLogger },
      {
        jobs: CAPABILITY_JOBS,
        now: () => clock,
        sleep: async (ms) => {
          slept.push(ms);
          clock += ms;
        },
      },
    );
    await Promise.all([sync.run(), sync.run()]);
    expect(reads()).toBe(1);
    await sync.runFor(60_000);
    expect(reads()).toBe(1 + 6); // at 0, 10, 20, 30, 40 and 50 s
    expect(slept).toEqual([10_000, 10_000, 10_000, 10_000, 10_000]);
  });
});
