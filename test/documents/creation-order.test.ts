// A tenant's documents come in number order: an invoice numbered after another is never dated
// before it, nor visible before it. PostgreSQL only: PGlite is one session and could never show
// creators overlapping.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import type { Harness } from "../support/harness.ts";
import { createAll, interleaved, newTenants, startLoadHarness, statusCounts } from "./load.ts";

describeWithPostgres("documents in number order [postgres]", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startLoadHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  /** The tenant's documents after `after` as the API lists them: number and creation time. */
  async function listed(tenantId: string, after = 0): Promise<{ docNumber: number; createdAt: string }[]> {
    const response = await harness.request(`/v1/documents?after=${after}&limit=100`, { as: { tid: tenantId } });
    return ((await response.json()) as { items: { docNumber: number; createdAt: string }[] }).items;
  }

  const inNumberOrder = (documents: { createdAt: string }[]) =>
    documents.every((document, i) => i === 0 || document.createdAt >= documents[i - 1]!.createdAt);

  it("a creator that began before another took its number, and numbers after it, is dated after it", async () => {
    const [tenantId] = newTenants(1);
    const early = new pg.Client({ connectionString: harness.stack.postgresUrl });
    await early.connect();
    try {
      // Its statement's start is now(); it takes the tenant's number only after the API's create.
      await early.query("BEGIN");
      await early.query("SELECT now()");
      await new Promise((resolve) => setTimeout(resolve, 20));
      const [first] = await createAll(harness, [{ tenantId: tenantId!, contractId: "C-1" }]);
      expect(first!.body.docNumber).toBe(1);
      await early.query("INSERT INTO documents (tenant_id, contract_id) VALUES ($1, 'C-2')", [tenantId]);
      await early.query("COMMIT");
    } finally {
      await early.end();
    }
    const documents = await listed(tenantId!);
    expect(documents.map((document) => document.docNumber)).toEqual([1, 2]);
    expect(documents[1]!.createdAt >= documents[0]!.createdAt).toBe(true);
  });

  it("100 concurrent creates on one tenant: createdAt never goes back as docNumber goes up", async () => {
    const [tenantId] = newTenants(1);
    const answers = await createAll(harness, interleaved([tenantId!], 100));
    expect(statusCounts(answers)).toEqual({ 201: 100 });
    const documents = await listed(tenantId!);
    expect(documents).toHaveLength(100);
    expect(inNumberOrder(documents)).toBe(true);
  });

  it("a reader polling ?after= its last number while 100 creates run, ten at a time, never skips a number", async () => {
    const [tenantId] = newTenants(1);
    // Ten waves of ten concurrent creates, so the reader's pages land between and among them.
    const creating = (async () => {
      const answers = [];
      for (let wave = 0; wave < 10; wave++) answers.push(...(await createAll(harness, interleaved([tenantId!], 10))));
      return answers;
    })();
    const seen: number[] = [];
    let done = false;
    void creating.finally(() => (done = true));
    for (let last = 0; last < 100; ) {
      const page = (await listed(tenantId!, last)).map((document) => document.docNumber);
      // Whatever committed so far is after+1, after+2, …: a lower number never shows up later.
      expect(page).toEqual(page.map((_, i) => last + 1 + i));
      seen.push(...page);
      last = page.at(-1) ?? last;
      if (done && page.length === 0) break;
    }
    expect(statusCounts(await creating)).toEqual({ 201: 100 });
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });
});
