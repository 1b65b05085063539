// `npm run bench:migration` with tiny settings on the local PostgreSQL: from the schema before
// tenants, every migration applies under steady writes, no write fails, and the release before
// tenants links until sql/0013 refuses it, each writer then going on with this release's statements.
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FIRST_TENANT_MIGRATION } from "../dev/support/links-before-tenants.ts";
import { describeWithPostgres } from "../dev/support/postgres.ts";
import { LOCAL_POSTGRES_URL } from "../dev/support/scratch-schema.ts";
import { DEFAULT_MIGRATIONS_DIR, migrationFiles } from "../edge/migrate/migrate.ts";
import { runBenchScript, runScript } from "./lib/run-script.ts";

interface MigrationJson {
  applied: string[];
  files: { name: string; ms: number }[];
  writesDuringMigration: number;
  failureCount: number;
  failures: string[];
  releaseBeforeTenantsRefused: { atMs: number; during: string }[];
}

describeWithPostgres("npm run bench:migration (tiny settings) [postgres]", () => {
  let out: string;
  let result: MigrationJson;
  beforeAll(async () => {
    const args = ["--links", "3000", "--documents", "300", "--writers", "2"];
    ({ out, result } = await runBenchScript<MigrationJson>("migration", args, {
      DATABASE_URL: LOCAL_POSTGRES_URL,
    }));
  }, 120_000);
  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it("applies every migration since the schema before tenants, each file timed, no write failing", async () => {
    const files = await migrationFiles(DEFAULT_MIGRATIONS_DIR);
    expect(result.applied).toEqual(files.filter((name) => name >= FIRST_TENANT_MIGRATION));
    expect(result.files.map((file) => file.name)).toEqual(result.applied);
    expect(result.writesDuringMigration).toBeGreaterThan(0);
    expect(result.failures).toEqual([]);
    expect(result.failureCount).toBe(0);
  });

  it("runs the release before tenants until 0013 refuses it, once per writer", () => {
    // A writer unlinking then (the unlink of that release still runs) is refused at its next link.
    const when = result.releaseBeforeTenantsRefused.map((refusal) => refusal.during);
    expect(when).toHaveLength(2);
    // From 0013 on: during it, during a later file, or after the last.
    for (const during of when) expect(during).toMatch(/^(00(1[3-9]|[2-9]\d)_.*\.sql|after the migration)$/);
  });

  it("writes the Markdown table with the per-file timings", async () => {
    const markdown = await readFile(join(out, "migration.md"), "utf8");
    expect(markdown).toMatch(/^Command: `npm run bench:migration -- --links 3000 /m);
    expect(markdown).toContain("| 0006_link_tenants.sql | ");
    expect(markdown).toContain("refused the link writes of the release before tenants");
  });

  it("refuses a --from that names no migration with one line and the usage (exit 2)", async () => {
    const refused = await runScript("bench/migration.ts", ["--from", "0006"], { DATABASE_URL: LOCAL_POSTGRES_URL });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^--from must name a file of the migrations.*\n\nnpm run bench:migration/);
  }, 60_000);
});
