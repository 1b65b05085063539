// migrate() on both sessions (PostgreSQL's, and PGlite's through the local stack), with a throwaway folder of tiny migrations.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgliteBackend } from "../../dev/local-stack/neon-endpoint/pglite-backend.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { MigrationError, type MigrationSession, migrate, plainStatements } from "./migrate.ts";
import { postgresMigrationSession } from "./postgres.ts";

type Session = MigrationSession & { close(): Promise<void> };

const FIRST = `CREATE TABLE a (id int PRIMARY KEY);
-- a trailing comment without a newline must not swallow the COMMIT`;
const SECOND = `CREATE FUNCTION a_count() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM a);
END;
$$;
INSERT INTO a VALUES (1), (2);`;

async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "migrations-"));
  for (const [name, sql] of Object.entries(files)) await writeFile(join(dir, name), sql);
  return dir;
}

const scalar = async (backend: Session, query: string) =>
  (await backend.query({ query, params: [] })).rows[0]?.[0] ?? null;

function migrateSuite(open: () => Promise<Session>) {
  return () => {
    let backend: Session;
    let dir: string;
    beforeAll(async () => {
      backend = await open();
      dir = await migrationsDir({ "0001_a.sql": FIRST, "0002_fn.sql": SECOND, "notes.md": "not a migration" });
    });
    afterAll(async () => {
      await backend?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("applies pending migrations once, in order", async () => {
      expect(await migrate(backend, dir)).toEqual(["0001_a.sql", "0002_fn.sql"]);
      expect(await scalar(backend, "SELECT a_count()")).toBe("2");
      expect(await migrate(backend, dir)).toEqual([]);
      const names = await backend.query({ query: "SELECT name FROM schema_migrations ORDER BY name", params: [] });
      expect(names.rows).toEqual([["0001_a.sql"], ["0002_fn.sql"]]);
    });

    it("leaves no trace of a failing migration and stays usable", async () => {
      await writeFile(join(dir, "0003_bad.sql"), "CREATE TABLE c (id int);\nSELECT 1/0;");
      const error = await migrate(backend, dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationError);
      expect((error as Error).message).toMatch(/0003_bad\.sql.*division by zero/);
      expect(await scalar(backend, "SELECT to_regclass('c')::text")).toBeNull();
      expect(await scalar(backend, "SELECT count(*) FROM schema_migrations")).toBe("2");
      await writeFile(join(dir, "0003_bad.sql"), "CREATE TABLE c (id int);");
      expect(await migrate(backend, dir)).toEqual(["0003_bad.sql"]);
    });
  };
}

describe("a no-transaction file's statements", () => {
  it("splits at each ; that ends a line, drops comments and keeps a $ inside a string", () => {
    const sql = `-- migrate: no-transaction
-- a check: '^x$'
ALTER TABLE t ADD CONSTRAINT t_code CHECK (code ~ '^[a-z]{1,8}$') NOT VALID;

CREATE INDEX CONCURRENTLY IF NOT EXISTS t_code_key
  ON t (code); -- the look-up
ALTER TABLE t VALIDATE CONSTRAINT t_code;`;
    expect(plainStatements("0001_t.sql", sql)).toEqual([
      "ALTER TABLE t ADD CONSTRAINT t_code CHECK (code ~ '^[a-z]{1,8}$') NOT VALID",
      "CREATE INDEX CONCURRENTLY IF NOT EXISTS t_code_key\n  ON t (code)",
      "ALTER TABLE t VALIDATE CONSTRAINT t_code",
    ]);
  });

  it.each(["$$", "$body$"])("refuses a %s body, whose lines it cannot split", (quote) => {
    const sql = `DO ${quote}\nBEGIN\n  PERFORM 1;\nEND\n${quote};`;
    expect(() => plainStatements("0001_do.sql", sql)).toThrow(/0001_do\.sql.*no \$ bodies/);
  });
});

describe("migrate on PGlite", () => {
  describe(
    "in memory",
    migrateSuite(() => createPgliteBackend()),
  );

  it("persists to a data folder it creates", async () => {
    const root = await mkdtemp(join(tmpdir(), "pglite-"));
    const dir = await migrationsDir({ "0001_a.sql": FIRST });
    const dataDir = join(root, "nested", "pglite");
    try {
      const first = await createPgliteBackend(dataDir);
      expect(await migrate(first, dir)).toEqual(["0001_a.sql"]);
      await first.close();
      const second = await createPgliteBackend(dataDir);
      expect(await migrate(second, dir)).toEqual([]);
      expect(await scalar(second, "SELECT to_regclass('a')::text")).toBe("a");
      await second.close();
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000); // two PGlite boots: slow on a busy machine
});

describeWithPostgres("migrate on PostgreSQL", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  describe(
    "one migrator",
    migrateSuite(async () => postgresMigrationSession(db.url)),
  );

  it("lets concurrent migrators apply each file exactly once", async () => {
    const fresh = await createTestDatabase();
    const dir = await migrationsDir({ "0001_a.sql": FIRST, "0002_fn.sql": SECOND });
    const backends = [1, 2, 3].map(() => postgresMigrationSession(fresh.url));
    try {
      const applied = await Promise.all(backends.map((backend) => migrate(backend, dir)));
      expect(applied.flat().sort()).toEqual(["0001_a.sql", "0002_fn.sql"]);
      expect(await scalar(backends[0]!, "SELECT a_count()")).toBe("2");
    } finally {
      await Promise.all(backends.map((backend) => backend.close()));
      await rm(dir, { recursive: true, force: true });
      await fresh.drop();
    }
  });

  // The first migrator holds the migrations' lock for as long as a file runs; the second waits
  // for it at the start (before it reads what is applied) as it would for any file: LOCK_TIMEOUT
  // at a time, then again after a pause, instead of failing its deploy.
  it("lets a migrator start while another applies a file for longer than the lock timeout", async () => {
    const fresh = await createTestDatabase();
    const dir = await migrationsDir({ "0001_a.sql": FIRST });
    const [first, second] = [1, 2].map(() => postgresMigrationSession(fresh.url));
    try {
      await migrate(first!, dir);
      await writeFile(join(dir, "0002_slow.sql"), "SELECT pg_sleep(1.5);");
      const applying = migrate(first!, dir);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the first holds the lock by now
      const later = await migrate(second!, dir, { backoffMs: () => 100 }).catch((error: unknown) => error);
      expect(later).toEqual([]);
      expect(await applying).toEqual(["0002_slow.sql"]);
    } finally {
      await Promise.all([first!.close(), second!.close()]);
      await rm(dir, { recursive: true, force: true });
      await fresh.drop();
    }
  });
});
