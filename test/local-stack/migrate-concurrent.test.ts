// Two deploys migrating one database at once: both succeed, every migration is applied exactly
// once, in order, and the schema is whole. Real `npm run migrate` processes on the real PostgreSQL.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { DEFAULT_MIGRATIONS_DIR, migrationFiles } from "../../edge/migrate/migrate.ts";
import { runScript, watch } from "./processes.ts";

describeWithPostgres("npm run migrate, twice at once [postgres]", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it("applies each migration once and both runs succeed", async () => {
    const runs = [0, 1].map(() =>
      watch(runScript("dev/local-stack/migrate-cli.ts", [], { DATABASE_URL: database.url })),
    );
    const codes = await Promise.all(runs.map((run) => run.exited));
    expect(codes, runs.map((run) => run.output()).join("\n---\n")).toEqual([0, 0]);
    const files = await migrationFiles(DEFAULT_MIGRATIONS_DIR);
    const appliedLines = runs.flatMap((run) => run.output().match(/^applied \S+$/gm) ?? []);
    expect(appliedLines.sort()).toEqual(files.map((name) => `applied ${name}`).sort());
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT name FROM schema_migrations ORDER BY name");
      expect(rows.map((row: { name: string }) => row.name)).toEqual(files);
      const { rows: tables } = await client.query(
        "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
      );
      // Every table the migrations create, once, and schema_migrations.
      const created = await Promise.all(files.map((name) => readFile(join(DEFAULT_MIGRATIONS_DIR, name), "utf8")));
      const createTables = created.join("\n").match(/^CREATE TABLE /gim)?.length ?? 0;
      expect(tables[0].n).toBe(createTables + 1);
    } finally {
      await client.end();
    }
    // The password never reaches the terminal (here there is none; the URL is printed redacted).
    for (const run of runs) expect(run.output()).toContain("Migrating postgres://");
  }, 60_000);
});
