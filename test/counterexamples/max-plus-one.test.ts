import { afterAll, beforeAll, expect, it } from "vitest";
import { isUniqueViolation } from "../../core/ports/sql.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import {
  createAll,
  interleaved,
  newTenants,
  numbersByTenant,
  oneTo,
  SPREAD_LOAD,
  startLoadHarness,
  statusCounts,
} from "../documents/load.ts";
import type { Harness } from "../support/harness.ts";
import { MAX_PLUS_ONE_CONSTRAINT, maxPlusOneNumbering } from "./max-plus-one.ts";

describeWithPostgres("counter-example: max()+1 numbering under the race suite's load [postgres]", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startLoadHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it("max()+1 collides: 23505 errors, failed requests", { timeout: 180_000 }, async () => {
    const naive = maxPlusOneNumbering(harness.sql, harness.stack.ownerExec);
    await naive.prepare();
    const tenants = newTenants(SPREAD_LOAD.tenants);
    const load = interleaved(tenants, SPREAD_LOAD.perTenant);

    const outcomes = await Promise.allSettled(load.map((r) => naive.create(r.tenantId, r.contractId)));
    const failures = outcomes.filter((outcome) => outcome.status === "rejected").map((outcome) => outcome.reason);

    expect(failures.length).toBeGreaterThan(0);
    // Every failure is the duplicate key: the collision, nothing else went wrong.
    expect(failures.filter((error) => !isUniqueViolation(error, MAX_PLUS_ONE_CONSTRAINT))).toEqual([]);
    const stored = (await Promise.all(tenants.map(naive.numbers))).flat();
    expect(stored).toHaveLength(load.length - failures.length);
  });

  it("the document route under the same load: no failure, consecutive numbers", { timeout: 180_000 }, async () => {
    const tenants = newTenants(SPREAD_LOAD.tenants);
    const answers = await createAll(harness, interleaved(tenants, SPREAD_LOAD.perTenant));
    expect(statusCounts(answers)).toEqual({ 201: SPREAD_LOAD.tenants * SPREAD_LOAD.perTenant });
    for (const numbers of numbersByTenant(answers).values()) expect(numbers).toEqual(oneTo(SPREAD_LOAD.perTenant));
  });
});
