// The worst interleaving, forced rather than hoped for: a first writer changes the asset inside
// an open transaction, a second conditional write naming the same version starts and blocks on
// the row lock, then the first commits. The second must see the new version and write nothing.
// A naive read-then-write under the same interleaving loses the first writer's change: the
// counter-example shows the setup really reproduces the race.
import { expect, it } from "vitest";
import type { MatchCondition } from "../../core/assets/preconditions.ts";
import { deleteAsset, importRows, updateAsset } from "../../core/assets/repository.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { interleave as interleaveOn, postgresSessions } from "../support/interleave.ts";
import { createAsset, getAsset } from "./helpers.ts";

const TENANT = "acme"; // the tenant of the helpers' default token

describeWithPostgres("assets interleavings [postgres]", () => {
  const suite = postgresSessions();
  const h = () => suite.harness;

  const interleave = <A, B>(first: (sql: Sql) => Promise<A>, second: (sql: Sql) => Promise<B>) =>
    interleaveOn(suite.pool, first, second);

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
