// 503 means "not written". The database gives up (lock_timeout 4 s, statement_timeout 5 s) before
// the SQL port does (10 s), so a create that waits on a held counter row, or on a crowd of creates
// of its tenant, is refused by the database and rolled back, never committed behind a 503.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { numberingGaps } from "../hardening/invariants.ts";
import { type Harness, startHarness } from "../support/harness.ts";

describeWithPostgres("no 503 for a write that commits [postgres]", () => {
  let harness: Harness;
  let admin: pg.Client;
  beforeAll(async () => {
    harness = await startHarness({ backend: "postgres" }); // the SQL port's real 10 s deadline
    admin = new pg.Client({ connectionString: harness.stack.postgresUrl });
    await admin.connect();
    // This session holds a counter row for 12 s between statements: the database would end it
    // after 5 s idle in its transaction (sql/0010), so it opts out, as only a test should.
    await admin.query("SET idle_in_transaction_session_timeout = 0");
  });
  afterAll(async () => {
    await admin?.end();
    await harness?.close();
  });

  const create = (tenant: string, contractId: string) =>
    harness.request("/v1/documents", { method: "POST", as: { tid: tenant }, body: { contractId } });

  async function stored(tenant: string, contractIds: string[]): Promise<Set<string>> {
    const { rows } = await admin.query(
      "SELECT contract_id FROM documents WHERE tenant_id = $1 AND contract_id = ANY($2)",
      [tenant, contractIds],
    );
    return new Set(rows.map((row: { contract_id: string }) => row.contract_id));
  }

  it("leaves every create answered 503 absent while the tenant's counter row is held past the deadline", async () => {
    expect((await create("held", "before")).status).toBe(201);
    await admin.query("BEGIN");
    await admin.query("SELECT * FROM document_sequences WHERE tenant_id = 'held' FOR UPDATE");
    const ids = Array.from({ length: 20 }, (_, i) => `held-${i}`);
    const answers = Promise.all(ids.map((id) => create("held", id)));
    await new Promise((done) => setTimeout(done, 12_000)); // past the SQL port's 10 s deadline
    await admin.query("ROLLBACK");
    const statuses = (await answers).map((response) => response.status);
    await new Promise((done) => setTimeout(done, 500)); // anything still running would commit now
    const present = await stored("held", ids);
    ids.forEach((id, i) => {
      // The lock outlived them all: none is created. 504 (outcome unknown: the SQL port's deadline
      // passed first on a starved machine) promises nothing; a 503 promises nothing was written.
      expect([503, 504], `${id}: ${statuses[i]}`).toContain(statuses[i]);
      if (statuses[i] === 503) expect(present.has(id), `${id} answered 503 but committed`).toBe(false);
    });
    expect(statuses).toContain(503);
    expect(await numberingGaps(harness.sql, "held")).toEqual([]);
  }, 40_000);

  it("under a crowd of concurrent creates on one tenant, every 503 is absent and every 201 present", async () => {
    const ids = Array.from({ length: 400 }, (_, i) => `crowd-${i}`);
    const statuses = (await Promise.all(ids.map((id) => create("crowd", id)))).map((response) => response.status);
    const present = await stored("crowd", ids);
    ids.forEach((id, i) => {
      // 504 (outcome unknown: the SQL port's deadline passed on a starved machine) promises nothing.
      expect([201, 503, 504], `${id}: ${statuses[i]}`).toContain(statuses[i]);
      if (statuses[i] !== 504) expect(present.has(id), `${id} answered ${statuses[i]}`).toBe(statuses[i] === 201);
    });
    expect(await numberingGaps(harness.sql, "crowd")).toEqual([]);
  }, 60_000);
});
