// A partition that outlives the database session: the database's side of every pooled connection
// is gone while the endpoint's side stays open and silent. Once the database is reachable again,
// requests succeed within 10 s, without a restart: a connection whose statement outlives its
// deadline is destroyed, never drawn again.
import { expect, it } from "vitest";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { numberingGaps } from "../hardening/invariants.ts";
import { relayedHarness } from "./relayed-harness.ts";

const RECOVERY_BOUND_MS = 10_000;

describeWithPostgres("half-open pooled connections [postgres]", () => {
  // The endpoint's own defaults (queue wait, statement deadline): what `npm start` runs.
  const relayed = relayedHarness("half-open", { poolSize: 4 });
  const create = (key: string) => relayed().create(key);

  it("serves requests again within 10 s of the database being reachable, without a restart", async () => {
    // Every pooled connection is open (and was used) when the partition starts.
    const warm = await Promise.all(["w-0", "w-1", "w-2", "w-3"].map(create));
    expect(warm.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    relayed().proxy.partition(); // the database's side of each is gone; new connections reach it

    const reachable = Date.now();
    const answered: number[] = [];
    let recoveredAfterMs: number | undefined;
    for (let attempt = 0; recoveredAfterMs === undefined && Date.now() - reachable < 2 * RECOVERY_BOUND_MS; attempt++) {
      // Four at once: every stale connection is drawn, not one at a time.
      const round = await Promise.all([0, 1, 2, 3].map((i) => create(`after-${attempt}-${i}`)));
      answered.push(...round.map((r) => r.status));
      if (round.every((r) => r.status === 201)) recoveredAfterMs = Date.now() - reachable;
    }
    // Until then only "not written" or "not known", never a wrong answer.
    for (const status of answered) expect([201, 503, 504]).toContain(status);
    expect(recoveredAfterMs, `answers: ${answered.join(",")}`).toBeLessThan(RECOVERY_BOUND_MS);

    const after = await Promise.all(Array.from({ length: 12 }, (_, i) => create(`steady-${i}`)));
    expect(after.map((r) => r.status)).toEqual(Array(12).fill(201));
    expect(await numberingGaps(relayed().harness.sql, "half-open")).toEqual([]);
  }, 40_000);
});
