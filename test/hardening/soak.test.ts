// The soak in its short mode (part of `npm test`): ~20 s of mixed operations on the real
// PostgreSQL, then every invariant checked against the database. The long mode is
// `tsx test/hardening/soak-cli.ts --seconds N`.
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { routes } from "../support/routes.ts";
import { runSoak } from "./soak.ts";

const SHORT_SOAK_MS = 20_000;
const CONCURRENCY = 8;

describeWithPostgres("soak (short mode) on PostgreSQL", () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ backend: "postgres", poolSize: CONCURRENCY + 2 });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it(
    "keeps every promise under a mixed concurrent load",
    async () => {
      const report = await runSoak(harness, { durationMs: SHORT_SOAK_MS, concurrency: CONCURRENCY });
      expect(report.violations).toEqual([]);
      // The mix really ran: links were made and unmade, documents numbered, counters contended.
      expect(report.answers.link?.[201]).toBeGreaterThan(0);
      expect(report.answers.unlink?.[204]).toBeGreaterThan(0);
      expect(report.answers["document create"]?.[201]).toBeGreaterThan(0);
      expect(report.answers["asset patch"]?.[200]).toBeGreaterThan(0);
      // And every route of the app was called, each answered without a 5xx.
      expect(Object.keys(report.answers)).toEqual(expect.arrayContaining(routes.map((route) => route.key)));
    },
    SHORT_SOAK_MS + 90_000,
  );
});
