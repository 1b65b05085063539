// Forcing an interleaving on the real PostgreSQL: a first statement runs inside a transaction
// held open on one session, a second starts on another and blocks on a lock the first holds,
// then the first commits. What the tests of races need to drive the worst order, not hope for it.
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import type { Row, Sql } from "../../core/ports/sql.ts";
import { type Harness, startHarness } from "./harness.ts";

/** For one suite: a harness on the real PostgreSQL, and a pool of sessions to hold transactions on. */
export function postgresSessions(): { readonly harness: Harness; readonly pool: pg.Pool } {
  let harness: Harness | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    harness = await startHarness({ backend: "postgres" });
    pool = new pg.Pool({ connectionString: harness.stack.postgresUrl, max: 3 });
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await harness?.close();
  });
  const started = <T>(value: T | undefined) => {
    if (value === undefined) throw new Error("used before the suite started");
    return value;
  };
  return {
    get harness() {
      return started(harness);
    },
    get pool() {
      return started(pool);
    },
  };
}

/** The SQL port over one pg session, so a test can hold a transaction open. */
export const sqlOver = (client: pg.PoolClient): Sql => ({
  query: async <T extends Row>(text: string, params: readonly unknown[] = []) =>
    (await client.query(text, [...params])).rows as T[],
  transaction: () => Promise.reject(new Error("not used here")),
});

/**
 * Runs `first` in an open transaction, starts `second`, waits until it blocks, commits. With
 * `mayFinish`, a `second` that needs none of the first's locks may also finish before the commit
 * (a right statement that does not wait, where a wrong one would).
 */
export async function interleave<A, B>(
  pool: pg.Pool,
  first: (sql: Sql) => Promise<A>,
  second: (sql: Sql) => Promise<B>,
  { mayFinish = false } = {},
): Promise<{ firstResult: A; secondResult: B }> {
  const [one, two] = [await pool.connect(), await pool.connect()];
  try {
    const { pid } = (await two.query("SELECT pg_backend_pid() AS pid")).rows[0];
    await one.query("BEGIN");
    const firstResult = await first(sqlOver(one));
    let finished = false;
    const secondResult = second(sqlOver(two)).finally(() => {
      finished = true;
    });
    await waitUntilBlocked(pool, pid, () => mayFinish && finished);
    await one.query("COMMIT");
    return { firstResult, secondResult: await secondResult };
  } finally {
    one.release();
    two.release();
  }
}

async function waitUntilBlocked(pool: pg.Pool, pid: number, finished: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !finished(); i++) {
    const { rows } = await pool.query("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [pid]);
    if (rows[0]?.wait_event_type === "Lock") return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (!finished()) throw new Error("the second writer never blocked on the lock");
}
