// The worst interleaving, forced rather than hoped for: a first writer changes the asset inside
// an open transaction, a second conditional write naming the same version starts and blocks on
// the row lock, then the first commits. The second must see the new version and write nothing.
// A naive read-then-write under the same interleaving loses the first writer's change: the
// counter-example shows the setup really reproduces the race.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { MatchCondition } from "../../core/assets/preconditions.ts";
import { deleteAsset, importRows, updateAsset } from "../../core/assets/repository.ts";
import type { Row, Sql } from "../../core/ports/sql.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { createAsset, getAsset } from "./helpers.ts";

const TENANT = "acme"; // the tenant of the helpers' default token

/** The SQL port over one pg session, so a test can hold a transaction open. */
const sqlOver = (client: pg.PoolClient): Sql => ({
  query: async <T extends Row>(text: string, params: readonly unknown[] = []) =>
    (await client.query(text, [...params])).rows as T[],
  transaction: () => Promise.reject(new Error("not used here")),
});

describeWithPostgres("assets interleavings [postgres]", () => {
  let harness: Harness;
  let pool: pg.Pool;
  const h = () => harness;
  beforeAll(async () => {
    harness = await startHarness({ backend: "postgres" });
    pool = new pg.Pool({ connectionString: harness.stack.postgresUrl, max: 3 });
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await harness?.close();
  });

  /** Runs `first` in an open transaction, starts `second`, waits until it blocks, commits. */
  async function interleave<A, B>(first: (sql: Sql) => Promise<A>, second: (sql: Sql) => Promise<B>) {
    const [one, two] = [await pool.connect(), await pool.connect()];
    try {
      const { pid } = (await two.query("SELECT pg_backend_pid() AS pid")).rows[0];
      await one.query("BEGIN");
      const firstResult = await first(sqlOver(one));
      const secondResult = second(sqlOver(two));
      await waitUntilBlocked(pid);
      await one.query("COMMIT");
      return { firstResult, secondResult: await secondResult };
    } finally {
      one.release();
      two.release();
    }
  }

  async function waitUntilBlocked(pid: number) {
    for (let i = 0; i < 500; i++) {
      const { rows } = await pool.query("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [pid]);
      if (rows[0]?.wait_event_type === "Lock") return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("the second writer never blocked on the row lock");
  }

  const matching = (etag: string): MatchCondition => ({ any: false, tags: [etag.slice(1, -1)] });

  it("PATCH vs PATCH on the same ETag: the second waits, re-checks, and reports a conflict", async () => {
    const { id, etag } = await createAsset(h());
    const { firstResult, secondResult } = await interleave(
      (sql) => updateAsset(sql, TENANT, id, matching(etag), { name: "first" }),
      (sql) => updateAsset(sql, TENANT, id, matching(etag), { material: "second" }),
    );
    expect(firstResult.outcome).toBe("updated");
    expect(secondResult).toEqual({ outcome: "conflict" });
    expect((await getAsset(h(), id)).body).toMatchObject({ name: "first", material: "oak" });
  });

  it("counter-example: read-then-write under the same interleaving loses the first change", async () => {
    const { id, etag } = await createAsset(h());
    const { secondResult } = await interleave(
      (sql) => updateAsset(sql, TENANT, id, matching(etag), { name: "first" }),
      async (sql) => {
        const [row] = await sql.query("SELECT etag, name FROM assets WHERE tenant_id = $1 AND id = $2", [TENANT, id]);
        if (`"${row!.etag}"` !== etag) return "conflict"; // the check passes: the first has not committed
        await sql.query("UPDATE assets SET name = $3, material = $4 WHERE tenant_id = $1 AND id = $2", [
          TENANT,
          id,
          row!.name,
          "second",
        ]);
        return "updated";
      },
    );
    expect(secondResult).toBe("updated");
    expect((await getAsset(h(), id)).body).toMatchObject({ name: "Chair", material: "second" }); // "first" is lost
  });

  it("an import row naming the version a concurrent PATCH replaced: conflict", async () => {
    const { id, etag } = await createAsset(h());
    const { secondResult } = await interleave(
      (sql) => updateAsset(sql, TENANT, id, matching(etag), { name: "first" }),
      (sql) =>
        importRows(sql, TENANT, [{ line: 2, id, name: "imported", material: "oak", sourceEtag: etag.slice(1, -1) }]),
    );
    expect(secondResult.get(2)).toEqual({ outcome: "conflict" });
    expect((await getAsset(h(), id)).body.name).toBe("first");
  });

  it("a write losing to a concurrent DELETE or approval reports a conflict (412), even with If-Match: *", async () => {
    const deleted = await createAsset(h());
    const afterDelete = await interleave(
      (sql) => deleteAsset(sql, TENANT, deleted.id, matching(deleted.etag)),
      (sql) => updateAsset(sql, TENANT, deleted.id, { any: true, tags: [] }, { name: "second" }),
    );
    expect(afterDelete).toEqual({ firstResult: "deleted", secondResult: { outcome: "conflict" } });
    expect((await getAsset(h(), deleted.id)).status).toBe(404);

    const approved = await createAsset(h());
    const afterApproval = await interleave(
      (sql) => updateAsset(sql, TENANT, approved.id, matching(approved.etag), { approve: true }),
      (sql) => updateAsset(sql, TENANT, approved.id, { any: true, tags: [] }, { name: "second" }),
    );
    expect(afterApproval.secondResult).toEqual({ outcome: "conflict" });
    expect((await getAsset(h(), approved.id)).body).toMatchObject({ name: "Chair", status: "approved" });
  });
});
