// The numbering guarantees under real concurrency. PostgreSQL only: PGlite is one session and
// could never show a race.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { requestFingerprint } from "../../core/idempotency/key.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import {
  type CreateRequest,
  createAll,
  interleaved,
  newTenants,
  numbersByTenant,
  oneTo,
  SPREAD_LOAD,
  startLoadHarness,
  statusCounts,
} from "./load.ts";

describeWithPostgres("documents under concurrency [postgres]", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startLoadHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  /** What the database holds, whatever the answers said. */
  async function storedNumbers(tenantId: string): Promise<number[]> {
    const rows = await harness.sql.query("SELECT doc_number FROM documents WHERE tenant_id = $1 ORDER BY 1", [
      tenantId,
    ]);
    return rows.map((row) => Number(row.doc_number));
  }

  it("1,000 concurrent creates over 5 tenants: all 201, consecutive per tenant, one round trip each", {
    timeout: 180_000,
  }, async () => {
    const tenants = newTenants(SPREAD_LOAD.tenants);
    const before = harness.stack.endpoint.statements();
    const answers = await createAll(harness, interleaved(tenants, SPREAD_LOAD.perTenant));
    expect(harness.stack.endpoint.statements() - before).toBe(answers.length);

    expect(statusCounts(answers)).toEqual({ 201: SPREAD_LOAD.tenants * SPREAD_LOAD.perTenant });
    const answered = numbersByTenant(answers);
    for (const tenantId of tenants) {
      expect(answered.get(tenantId)).toEqual(oneTo(SPREAD_LOAD.perTenant));
      expect(await storedNumbers(tenantId)).toEqual(oneTo(SPREAD_LOAD.perTenant));
    }
  });

  it("200 concurrent creates on one tenant: all 201, numbered exactly 1..200", async () => {
    const [tenantId] = newTenants(1);
    const answers = await createAll(harness, interleaved([tenantId!], 200));
    expect(statusCounts(answers)).toEqual({ 201: 200 });
    expect(numbersByTenant(answers).get(tenantId!)).toEqual(oneTo(200));
    expect(await storedNumbers(tenantId!)).toEqual(oneTo(200));
  });

  it.each([
    ["a new tenant (its counter is created by the race)", 0],
    ["a tenant with documents", 3],
  ])("20 concurrent retries with one key on %s: one document, no gap", async (_what, existing) => {
    // Repeated with fresh keys: each round is another chance for the first-use race to show.
    for (let round = 0; round < 5; round++) {
      const [tenantId] = newTenants(1);
      await createAll(harness, interleaved([tenantId!], existing));
      const retries = Array.from({ length: 20 }, () => ({
        tenantId: tenantId!,
        contractId: "C-1",
        idempotencyKey: "pay-once",
      }));
      const answers = await createAll(harness, retries);

      expect(statusCounts(answers)).toEqual({ 201: 20 });
      expect(answers.filter((answer) => !answer.replayed)).toHaveLength(1);
      expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
      expect(answers[0]!.body.docNumber).toBe(existing + 1);

      const [next] = await createAll(harness, [{ tenantId: tenantId!, contractId: "C-next" }]);
      expect(next!.body.docNumber).toBe(existing + 2);
      expect(await storedNumbers(tenantId!)).toEqual(oneTo(existing + 2));
    }
  });

  it("two callers of one tenant sending the same key at once: each gets its own document, never 422 nor the other's", async () => {
    for (let round = 0; round < 5; round++) {
      const [tenantId] = newTenants(1);
      const callers = ["alice", "bob"];
      const requests = Array.from({ length: 10 }, () =>
        callers.map((subject) => ({
          tenantId: tenantId!,
          subject,
          contractId: `C-${subject}`,
          idempotencyKey: "order-7",
        })),
      ).flat();
      const answers = await createAll(harness, requests);

      expect(statusCounts(answers)).toEqual({ 201: 20 });
      expect(answers.filter((answer) => !answer.replayed)).toHaveLength(2);
      for (const subject of callers) {
        const own = answers.filter((answer) => answer.request.subject === subject);
        expect(new Set(own.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
        expect(own[0]!.body.contractId).toBe(`C-${subject}`);
      }
      expect(await storedNumbers(tenantId!)).toEqual(oneTo(2));
    }
  });

  it("a key stored before keys had callers is the tenant's, as it was, until it expires", async () => {
    const [tenantId] = newTenants(1);
    await harness.sql.query(
      `INSERT INTO documents (tenant_id, contract_id, idempotency_key, request_fingerprint, idempotency_expires_at)
       VALUES ($1, 'C-1', 'legacy', $2, now() + interval '1 hour')`,
      [tenantId, await requestFingerprint(["C-1", null])],
    );
    const retry = { tenantId: tenantId!, contractId: "C-1", idempotencyKey: "legacy" };
    const [replayed, reused] = await createAll(harness, [
      { ...retry, subject: "alice" },
      { ...retry, subject: "bob", contractId: "C-2" },
    ]);
    expect(replayed).toMatchObject({ status: 201, replayed: true, body: { docNumber: 1 } });
    expect(reused).toMatchObject({ status: 422, body: { code: "idempotency_key_reused" } });

    await harness.sql.query("UPDATE documents SET idempotency_expires_at = now() WHERE tenant_id = $1", [tenantId]);
    const [fresh] = await createAll(harness, [{ ...retry, subject: "bob", contractId: "C-2" }]);
    expect(fresh).toMatchObject({ status: 201, replayed: false, body: { docNumber: 2, contractId: "C-2" } });
  });

  it("20 concurrent reuses of an expired key: one new document, the others replay it, no gap", async () => {
    for (let round = 0; round < 5; round++) {
      const [tenantId] = newTenants(1);
      const reuse = { tenantId: tenantId!, contractId: "C-1", idempotencyKey: "monthly" };
      const [first] = await createAll(harness, [reuse]);
      await harness.sql.query("UPDATE documents SET idempotency_expires_at = now() WHERE tenant_id = $1", [tenantId]);
      const answers = await createAll(
        harness,
        Array.from({ length: 20 }, () => reuse),
      );

      expect(statusCounts(answers)).toEqual({ 201: 20 });
      const created = answers.filter((answer) => !answer.replayed);
      expect(created).toHaveLength(1);
      expect(created[0]!.body.docNumber).toBe(2);
      expect(new Set(answers.map((answer) => answer.body.id))).toEqual(new Set([created[0]!.body.id]));
      expect(first!.body.id).not.toBe(created[0]!.body.id);
      expect(await storedNumbers(tenantId!)).toEqual([1, 2]);
    }
  });

  it("keyed retries racing plain creates on one tenant: every number used once, no gap", async () => {
    const [tenantId] = newTenants(1);
    const keyed = (key: string) =>
      Array.from({ length: 10 }, () => ({ tenantId: tenantId!, contractId: key, idempotencyKey: key }));
    const requests: CreateRequest[] = [...keyed("k1"), ...interleaved([tenantId!], 30), ...keyed("k2")];
    const answers = await createAll(
      harness,
      requests.sort(() => Math.random() - 0.5),
    );

    expect(statusCounts(answers)).toEqual({ 201: 50 });
    expect(answers.filter((answer) => answer.replayed)).toHaveLength(18);
    expect(await storedNumbers(tenantId!)).toEqual(oneTo(32));
  });

  it("one key sent concurrently with two different bodies: one document, the other body 422", async () => {
    const [tenantId] = newTenants(1);
    const requests = Array.from({ length: 20 }, (_, i) => ({
      tenantId: tenantId!,
      contractId: i % 2 ? "C-odd" : "C-even",
      idempotencyKey: "contested",
    }));
    const answers = await createAll(harness, requests);

    const winner = answers.find((answer) => answer.status === 201 && !answer.replayed)!;
    expect(winner).toBeDefined();
    for (const answer of answers) {
      const sameBody = answer.request.contractId === winner.request.contractId;
      expect(answer.status).toBe(sameBody ? 201 : 422);
      if (!sameBody) expect(answer.body.code).toBe("idempotency_key_reused");
    }
    expect(await storedNumbers(tenantId!)).toEqual([1]);
  });

  it("a failed insert gives its number back", async () => {
    const [tenantId] = newTenants(1);
    await createAll(harness, [{ tenantId: tenantId!, contractId: "C-1" }]);
    // The trigger numbers this row (2), then the CHECK constraint rejects it: all rolled back.
    const failing = harness.sql.query(
      "INSERT INTO documents (tenant_id, contract_id, idempotency_key) VALUES ($1, 'C-x', 'no-fingerprint')",
      [tenantId],
    );
    await expect(failing).rejects.toMatchObject({ code: "23514", constraint: "documents_fingerprint_with_key" });
    const [next] = await createAll(harness, [{ tenantId: tenantId!, contractId: "C-2" }]);
    expect(next!.body.docNumber).toBe(2);
  });

  /** Runs `fn` with a session of its own, as another client of the database would. */
  async function withSession<T>(fn: (session: pg.Client) => Promise<T>): Promise<T> {
    const session = new pg.Client({ connectionString: harness.stack.postgresUrl });
    await session.connect();
    try {
      return await fn(session);
    } finally {
      await session.end();
    }
  }

  it("tenants never wait on each other", async () => {
    const [busy, free] = newTenants(2);
    await createAll(harness, [{ tenantId: busy!, contractId: "C-1" }]);
    await withSession(async (holder) => {
      // Another session holds the busy tenant's counter, as a long allocation would.
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM document_sequences WHERE tenant_id = $1 FOR UPDATE", [busy]);
      let busyDone = false;
      const waiting = createAll(harness, [{ tenantId: busy!, contractId: "C-2" }]).finally(() => (busyDone = true));
      await lockWaiters(holder, 1);

      const [other] = await createAll(harness, [{ tenantId: free!, contractId: "C-1" }]);
      expect(other!.status).toBe(201);
      expect(busyDone).toBe(false); // the free tenant was served while the busy one queued

      await holder.query("COMMIT");
      const [queued] = await waiting;
      expect(queued!.body.docNumber).toBe(2);
    });
  });

  it.each([
    ["the same body is replayed", "C-1", 201],
    ["another body is refused", "C-other", 422],
  ])("a retry that waited for the key's first use: %s (one follow-up read)", async (_what, contractId, status) => {
    const [tenantId] = newTenants(1);
    await withSession(async (first) => {
      // The first use, still uncommitted: it holds the tenant's counter, numbered 1.
      await first.query("BEGIN");
      await first.query(
        "INSERT INTO documents (tenant_id, contract_id, idempotency_key, request_fingerprint) VALUES ($1, 'C-1', 'k', $2)",
        [tenantId, await requestFingerprint(["C-1", null])],
      );
      const before = harness.stack.endpoint.statements();
      const retry = createAll(harness, [{ tenantId: tenantId!, contractId, idempotencyKey: "k" }]);
      await lockWaiters(first, 1); // its statement began before the first use committed
      await first.query("COMMIT");

      const [answer] = await retry;
      expect(answer!.status).toBe(status);
      expect(harness.stack.endpoint.statements() - before).toBe(2);
      if (status === 201) expect(answer!).toMatchObject({ replayed: true, body: { docNumber: 1, contractId: "C-1" } });
      else expect(answer!.body.code).toBe("idempotency_key_reused");
    });
    const [next] = await createAll(harness, [{ tenantId: tenantId!, contractId: "C-2" }]);
    expect(next!.body.docNumber).toBe(2);
  });
});

/**
 * Waits until `count` other sessions of this database wait for a lock. `session` may be inside a
 * transaction, where pg_stat_activity answers the copy it took at its first read until that copy is
 * cleared: each poll clears it, so it sees the sessions and waits of now.
 */
async function lockWaiters(session: pg.Client, count: number): Promise<void> {
  for (;;) {
    await session.query("SELECT pg_stat_clear_snapshot()");
    const { rows } = await session.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if (rows[0].n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeWithPostgres("documents with the endpoint's pool limited to 2 connections [postgres]", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ backend: "postgres", poolSize: 2 });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it("50 concurrent creates (one hot tenant, others, keyed retries) all complete with 201", async () => {
    const [hot, ...others] = newTenants(6);
    const requests: CreateRequest[] = [
      ...interleaved([hot!], 25),
      ...interleaved(others, 3),
      ...Array.from({ length: 10 }, () => ({ tenantId: hot!, contractId: "K", idempotencyKey: "retry" })),
    ];
    const answers = await createAll(harness, requests);

    expect(statusCounts(answers)).toEqual({ 201: 50 });
    expect(numbersByTenant(answers.filter((answer) => !answer.replayed)).get(hot!)).toEqual(oneTo(26));
    for (const tenantId of others) expect(numbersByTenant(answers).get(tenantId)).toEqual(oneTo(3));
  });
});
