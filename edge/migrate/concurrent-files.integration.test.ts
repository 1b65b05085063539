// Two migrators, one of them behind the other inside a no-transaction file: the one ahead must not
// apply a later file (0013 and 0015 rename what 0006 and 0014 build) between the laggard's check
// that the file is still unrecorded and its next statement, or that statement builds again an
// index the later file renamed away: a second unique index, which no migration drops.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createTestDatabase, describeWithPostgres } from "../../dev/support/postgres.ts";
import { type MigrationSession, migrate } from "./migrate.ts";
import { postgresMigrationSession } from "./postgres.ts";

const EXPAND = `-- migrate: no-transaction
CREATE TABLE IF NOT EXISTS t (id int NOT NULL);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_id_new ON t (id);`;
const CONTRACT = "ALTER INDEX t_id_new RENAME TO t_id_key;";

const BUILD = /^CREATE UNIQUE INDEX CONCURRENTLY/;

describeWithPostgres("migrators racing through a no-transaction file [postgres]", () => {
  it("the one behind never rebuilds what a later file of the one ahead renamed", async () => {
    const database = await createTestDatabase();
    const dir = await mkdtemp(join(tmpdir(), "migrations-"));
    await writeFile(join(dir, "0001_expand.sql"), EXPAND);
    await writeFile(join(dir, "0002_contract.sql"), CONTRACT);
    const ahead = postgresMigrationSession(database.url);
    const behind = postgresMigrationSession(database.url);
    const observer = postgresMigrationSession(database.url);
    const rows = async (query: string) => (await observer.query({ query, params: [] })).rows;
    let aheadRun: Promise<string[]> | undefined;
    // The laggard has found 0001 unrecorded and is about to build: the other migrator runs then,
    // and the laggard goes on once it has finished, or waits for a lock the laggard holds.
    const laggard: MigrationSession = {
      query: (statement) => behind.query(statement),
      async exec(script) {
        if (BUILD.test(script) && !aheadRun) {
          aheadRun = migrate(ahead, dir, { backoffMs: () => 50, attempts: 200 });
          let finished = false;
          void aheadRun.then(() => {
            finished = true;
          });
          const blocked = async () =>
            (await rows("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).length > 0;
          while (!finished && !(await blocked())) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await behind.exec(script);
      },
    };
    try {
      await migrate(laggard, dir, { backoffMs: () => 50 });
      await aheadRun;
      const indexes = await rows("SELECT indexname FROM pg_indexes WHERE tablename = 't' ORDER BY indexname");
      expect(indexes).toEqual([["t_id_key"]]);
    } finally {
      await Promise.all([ahead.close(), behind.close(), observer.close()]);
      await rm(dir, { recursive: true, force: true });
      await database.drop();
    }
  });
});
