// Migrations run online (edge/migrate/migrate.ts): a statement that would queue behind traffic gives up
// after LOCK_TIMEOUT and is retried, so writes never wait behind it for longer; no-transaction
// files build indexes CONCURRENTLY, and a build that failed is rebuilt on the next run.
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { SqlBackend } from "../../dev/local-stack/neon-endpoint/backend.ts";
import { createPgBackend } from "../../dev/local-stack/neon-endpoint/pg-backend.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { DEFAULT_MIGRATIONS_DIR, MigrationError, migrate, migrationFiles } from "../../edge/migrate/migrate.ts";
import { postgresMigrationSession } from "../../edge/migrate/postgres.ts";

describeWithPostgres("online migrations [postgres]", () => {
  let database: TestDatabase;
  let backend: SqlBackend;
  let dir: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    backend = createPgBackend(database.url, { max: 1 });
    await migrate(backend);
    dir = await mkdtemp(join(tmpdir(), "online-migrations-"));
    for (const name of await migrationFiles(DEFAULT_MIGRATIONS_DIR)) {
      await copyFile(join(DEFAULT_MIGRATIONS_DIR, name), join(dir, name));
    }
  }, 60_000);
  afterAll(async () => {
    await backend?.close();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const scalar = async (query: string) => (await backend.query({ query, params: [] })).rows[0]?.[0] ?? null;

  const session = async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    return client;
  };

  it("gives up a lock it would queue for, lets writes through, and retries until it applies", async () => {
    await writeFile(join(dir, "9001_asset_note.sql"), "ALTER TABLE assets ADD COLUMN note text;\n");
    const [reader, writer] = [await session(), await session()];
    try {
      // A long read holds the table: the ALTER cannot have its exclusive lock for 3 s.
      await reader.query("BEGIN");
      await reader.query("SELECT count(*) FROM assets");
      const released = new Promise((resolve) => setTimeout(resolve, 3_000)).then(() => reader.query("COMMIT"));
      const attempts: number[] = [];
      const migrating = migrate(backend, dir, { backoffMs: (attempt) => (attempts.push(attempt), 100) });
      let longestWriteMs = 0;
      let writes = 0;
      const writing = (async () => {
        const until = Date.now() + 4_000;
        while (Date.now() < until) {
          const started = performance.now();
          await writer.query("INSERT INTO assets (tenant_id, id, name, material) VALUES ('online', $1, 'n', 'm')", [
            `a-${writes++}`,
          ]);
          longestWriteMs = Math.max(longestWriteMs, performance.now() - started);
        }
      })();
      expect(await migrating).toEqual(["9001_asset_note.sql"]);
      await Promise.all([released, writing]);
      expect(attempts.length).toBeGreaterThanOrEqual(3); // refused while the read held the table
      // Each attempt made writes queue behind it for at most the lock timeout (500 ms).
      expect(longestWriteMs).toBeLessThan(900);
      expect(writes).toBeGreaterThan(20);
      const { rows } = await writer.query("SELECT count(*)::int AS n FROM assets WHERE note IS NULL");
      expect(rows[0].n).toBe(writes);
    } finally {
      await Promise.all([reader.end(), writer.end()]);
    }
  }, 30_000);

  it("builds a no-transaction file's index CONCURRENTLY, and rebuilds one a failed run left invalid", async () => {
    await backend.exec("CREATE TABLE online_codes (code text); INSERT INTO online_codes VALUES ('a'), ('b'), ('b');");
    await writeFile(
      join(dir, "9002_online_codes_key.sql"),
      "-- migrate: no-transaction\n-- one code once\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS online_codes_key ON online_codes (code);\n",
    );
    const failed = await migrate(backend, dir).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(MigrationError);
    expect((failed as MigrationError).migration).toBe("9002_online_codes_key.sql");
    const valid = async () =>
      (
        await backend.query({
          query: "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('online_codes_key')",
          params: [],
        })
      ).rows;
    expect(await valid()).toEqual([["f"]]); // the failed build's leftover
    await backend.exec("DELETE FROM online_codes WHERE ctid = (SELECT max(ctid) FROM online_codes WHERE code = 'b')");
    expect(await migrate(backend, dir)).toEqual(["9002_online_codes_key.sql"]);
    expect(await valid()).toEqual([["t"]]);
    expect(await migrate(backend, dir)).toEqual([]);
  }, 30_000);

  it("lets a statement run longer than the app's 5 s deadline, as an index build on a large table does", async () => {
    // The app's backends give a statement 5 s, then give its connection up: a migration would be
    // reported failed while the server went on with it.
    await writeFile(join(dir, "9003_slow_build.sql"), "SELECT pg_sleep(5.5);\nCREATE TABLE slow_built (id int);\n");
    const migrator = postgresMigrationSession(database.url);
    try {
      expect(await migrate(migrator, dir)).toEqual(["9003_slow_build.sql"]);
      const { rows } = await migrator.query({ query: "SELECT to_regclass('slow_built')::text", params: [] });
      expect(rows).toEqual([["slow_built"]]);
    } finally {
      await migrator.close();
    }
  }, 30_000);

  it("leaves an index another session is building to it, and applies once that build has ended", async () => {
    await backend.exec("CREATE TABLE online_builds (code text); INSERT INTO online_builds VALUES ('a'), ('b');");
    await writeFile(
      join(dir, "9004_online_builds_key.sql"),
      "-- migrate: no-transaction\nCREATE INDEX CONCURRENTLY IF NOT EXISTS online_builds_key ON online_builds (code);\n",
    );
    const [holder, builder] = [await session(), await session()];
    try {
      // The other session's build waits for a write in flight: its index exists, still invalid.
      await holder.query("BEGIN");
      await holder.query("INSERT INTO online_builds VALUES ('c')");
      await builder.query("SET lock_timeout = 0");
      const building = builder.query("CREATE INDEX CONCURRENTLY online_builds_key ON online_builds (code)");
      // Asked outside the holder's transaction, whose catalog cache would not see the new index.
      const indexOid = async () => await scalar("SELECT to_regclass('online_builds_key')::oid::text");
      while ((await indexOid()) === null) await new Promise((resolve) => setTimeout(resolve, 20));
      const theirs = await indexOid();
      // It ends while this migrator is at it: a drop of the index then would take the finished one.
      setTimeout(() => void holder.query("COMMIT"), 300);
      let retries = 0;
      expect(await migrate(backend, dir, { backoffMs: () => (retries++, 100) })).toEqual([
        "9004_online_builds_key.sql",
      ]);
      await building;
      expect(retries).toBeGreaterThan(0);
      expect(await indexOid()).toBe(theirs); // their build, not dropped and built again
      expect(
        await scalar("SELECT indisvalid::text FROM pg_index WHERE indexrelid = to_regclass('online_builds_key')"),
      ).toBe("true");
    } finally {
      await Promise.all([holder.end(), builder.end()]);
    }
  }, 30_000);

  it("stops a no-transaction file that another migrator recorded meanwhile", async () => {
    await writeFile(
      join(dir, "9005_recorded_meanwhile.sql"),
      "-- migrate: no-transaction\nCREATE TABLE IF NOT EXISTS first_half (id int);\nCREATE TABLE IF NOT EXISTS second_half (id int);\n",
    );
    // The other migrator runs the file alongside this one, records it after the first statement,
    // and may go on to the files after it: this one runs nothing more of it.
    const alongside: SqlBackend = {
      ...backend,
      exec: async (script) => {
        await backend.exec(script);
        if (script.includes("first_half"))
          await backend.exec("INSERT INTO schema_migrations (name) VALUES ('9005_recorded_meanwhile.sql')");
      },
    };
    expect(await migrate(alongside, dir)).toEqual([]);
    expect(await scalar("SELECT to_regclass('first_half')::text")).toBe("first_half");
    expect(await scalar("SELECT to_regclass('second_half')::text")).toBeNull();
  });

  it("drops an invalid index no session is building only when it is found so again: a build may just have ended", async () => {
    await backend.exec("CREATE TABLE ended_builds (code text); INSERT INTO ended_builds VALUES ('a'), ('a');");
    // A build that failed (on the duplicate) leaves its index invalid, and no build in progress.
    await expect(
      backend.exec("CREATE UNIQUE INDEX CONCURRENTLY ended_builds_key ON ended_builds (code)"),
    ).rejects.toThrow();
    const indexOid = () => scalar("SELECT to_regclass('ended_builds_key')::oid::text");
    const leftover = await indexOid();
    await writeFile(
      join(dir, "9006_ended_builds_key.sql"),
      "-- migrate: no-transaction\nCREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ended_builds_key ON ended_builds (code);\n",
    );
    // What a build ending at the moment the migrator looked does next: it commits its index valid
    // (here by hand, on another session, during the migrator's pause before its next attempt).
    const committer = await session();
    let committed: Promise<unknown> | undefined;
    try {
      const pauses: number[] = [];
      const applied = await migrate(backend, dir, {
        backoffMs: (attempt) => {
          pauses.push(attempt);
          committed ??= committer.query(
            "UPDATE pg_index SET indisvalid = true WHERE indexrelid = to_regclass('ended_builds_key')",
          );
          return 300;
        },
      });
      await committed;
      expect(applied).toEqual(["9006_ended_builds_key.sql"]);
      expect(pauses).toEqual([1]); // found invalid with no build once, valid the next time
      expect(await indexOid()).toBe(leftover); // not dropped
    } finally {
      await committer.end();
      await backend.exec("DROP TABLE ended_builds");
    }
  });
});
