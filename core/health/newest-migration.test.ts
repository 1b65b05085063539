import { expect, it } from "vitest";
import { DEFAULT_MIGRATIONS_DIR, migrationFiles } from "../../edge/migrate/migrate.ts";
import { NEWEST_MIGRATION } from "./newest-migration.ts";

it("names the newest migration in sql/, which readiness requires the database to hold", async () => {
  const newest = (await migrationFiles(DEFAULT_MIGRATIONS_DIR)).at(-1);
  expect(NEWEST_MIGRATION, "core/health/newest-migration.ts must name the newest file in sql/").toBe(newest);
});
