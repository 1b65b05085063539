// A database the release migrator has not brought up to this code: not ready, and said so apart
// from a database out of reach; ready again once the migration is recorded, later ones beside it.
import { describe, expect, it } from "vitest";
import { NEWEST_MIGRATION } from "../../../core/health/newest-migration.ts";
import { READINESS_MAX_AGE_MS } from "../../../core/health/readiness.ts";
import type { RuntimeName } from "../../../dev/launchers/index.ts";
import { type Call, expectProblem } from "../client.ts";

/** Run as the owner of the database: the local stack deletes the newest record before the runtime starts. */
export const SCHEMA_BEHIND_SQL = `DELETE FROM schema_migrations WHERE name = '${NEWEST_MIGRATION}'`;

/** A migrator that runs this code's newest migration, and a later release's besides. */
const MIGRATED_AHEAD_SQL = `INSERT INTO schema_migrations (name) VALUES ('${NEWEST_MIGRATION}'), ('9999_a_later_release.sql')`;

export function schemaBehindCases(
  call: Call,
  runtime: RuntimeName,
  ownerExec: () => (script: string) => Promise<void>,
) {
  describe("database schema behind the code", () => {
    it("GET /readyz answers 503 database_schema_behind while /healthz answers 200", async () => {
      expect((await call("GET", "/healthz", { as: null })).status).toBe(200);
      const notReady = await call("GET", "/readyz", { as: null });
      expect(expectProblem(notReady, 503, "database_schema_behind").runtime).toBe(runtime);
      expect(notReady.headers.get("retry-after")).toBe("5");
    });

    it("GET /readyz answers 200 once the migration is recorded, a later release's beside it", async () => {
      await ownerExec()(MIGRATED_AHEAD_SQL);
      await expect
        .poll(async () => (await call("GET", "/readyz", { as: null })).status, { timeout: 5 * READINESS_MAX_AGE_MS })
        .toBe(200);
    });
  });
}
