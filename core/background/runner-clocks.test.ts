// The lease and the every-minute due time are times written to KV by one instance and compared on
// another's clock. One that lies further ahead than any honest writer puts it (an instance whose
// clock runs ahead, or a value written by something else bound to the store) must not hold the
// deployment's sync or housekeeping back for longer than an interval, or a minute; nor must this
// instance's own times, once its clock has stepped back.
import { describe, expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { emptyFeedSql, endlessFeedSql } from "../../test/support/link-feed.ts";
import { CAPABILITY_JOBS } from "../capabilities.ts";
import { linkSyncJob } from "../links/jobs.ts";
import { silentLogger } from "../log.ts";
import { parseSettings } from "../settings/settings.ts";
import { BACKGROUND_LEASE_KEY, createBackground, EVERY_MINUTE_DUE_KEY } from "./runner.ts";

const settings = parseSettings({ AUTH_SECRET: "s".repeat(32) }); // a 10 s interval
const HOUR_MS = 3_600_000;

describe("when the next run is due, by times kept in KV or in the instance", () => {
  it("a lease ending more than an interval ahead holds no instance back: it runs and takes the lease", async () => {
    let clock = 1_000_000;
    const kv = createMemoryKv(() => clock);
    const { sql, reads } = emptyFeedSql();
    const instance = () =>
      createBackground({ sql, kv, settings, logger: silentLogger }, { jobs: CAPABILITY_JOBS, now: () => clock });
    await kv.put(BACKGROUND_LEASE_KEY, String(clock + HOUR_MS), { ttlSeconds: 3600 });
    expect((await instance().runIfDue())?.outcomes.get(linkSyncJob)).toMatchObject({ caughtUp: true });
    expect(await kv.get(BACKGROUND_LEASE_KEY)).toBe(String(clock + 10_000));
    clock += 5_000;
    expect(await instance().runIfDue()).toBeUndefined(); // its own lease holds, as before
    expect(reads()).toBe(1);
  });

  it("a due time more than a minute ahead does not put the housekeeping off: it runs and sets a minute from now", async () => {
    const clock = 1_000_000;
    const kv = createMemoryKv(() => clock);
    const { sql, statements } = endlessFeedSql();
    await kv.put(EVERY_MINUTE_DUE_KEY, String(clock + HOUR_MS), { ttlSeconds: 3600 });
    const instance = createBackground(
      { sql, kv, settings, logger: silentLogger },
      { jobs: CAPABILITY_JOBS, now: () => clock, limits: { sqlStatements: 12 } },
    );
    await instance.run();
    expect(statements.filter((statement) => statement === "prune")).toHaveLength(1);
    expect(await kv.get(EVERY_MINUTE_DUE_KEY)).toBe(String(clock + 60_000));
  });

  it("a clock stepped back does not put this instance's own next sync or housekeeping off by the step", async () => {
    let clock = 1_000_000_000;
    const kv = createMemoryKv(() => clock);
    const { sql, statements } = endlessFeedSql();
    const instance = createBackground(
      { sql, kv, settings, logger: silentLogger },
      { jobs: CAPABILITY_JOBS, now: () => clock, limits: { sqlStatements: 12 } },
    );
    const prunes = () => statements.filter((statement) => statement === "prune").length;
    await instance.runIfDue();
    clock -= HOUR_MS;
    expect(await instance.runIfDue()).toBeDefined();
    expect(prunes()).toBe(2);
    // Then on the clock as it now reads: a sync per interval, the housekeeping once a minute.
    clock += 30_000;
    await instance.run();
    expect(prunes()).toBe(2);
    clock += 30_000;
    await instance.run();
    expect(prunes()).toBe(3);
  });
});
