import { expect, it } from "vitest";
import type { TokenClaims } from "../../dev/support/tokens.ts";
import { cachedEntry, cacheKeys, linkPath } from "../../test/links/support.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";
import { createInvocationBudget } from "../background/invocation-budget.ts";
import { silentLogger } from "../log.ts";
import { DEFAULT_LINK_CACHE_TTL_SECONDS } from "../settings/settings.ts";
import { createLinkCache } from "./cache.ts";
import { linkKey, tenantKeyPrefix } from "./kv-keys.ts";
import type { Link } from "./link.ts";
import { DEFAULT_RESYNC_BATCH_SIZE, parseResyncPosition, type ResyncCounts, resyncLinkCache } from "./resync.ts";
import { KV_CONCURRENCY } from "./sync.ts";

const admin: TokenClaims = { sub: "root", role: "admin" };
const service: TokenClaims = { sub: "billing", role: "service" };
const BULK = 250; // several batches

describeOnBackends("POST /v1/admin/links/resync", (harness) => {
  const resync = async (): Promise<ResyncCounts> => {
    const response = await harness().request("/v1/admin/links/resync", { method: "POST", as: admin });
    expect(response.status).toBe(200);
    return (await response.json()) as ResyncCounts;
  };
  const link = async (provider: string, id: string, sub: string) =>
    (await (await harness().request(linkPath(provider, id), { method: "PUT", as: { sub } })).json()) as Link;
  const statementsDuring = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
    harness().stack.endpoint.resetStatements();
    const result = await run();
    return [result, harness().stack.endpoint.statements()];
  };
  const batches = (count: number) => Math.ceil(count / DEFAULT_RESYNC_BATCH_SIZE);

  it("works in chunks that fit the invocation's KV operations, each call going on from the last one's next", async () => {
    const { sql, kv } = harness();
    const tenantId = "chunked";
    await sql.query(
      `INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
       SELECT '${tenantId}', 'bulk', 'c-' || n, 'u-' || n FROM generate_series(1, ${BULK}) AS n`,
    );
    let after: string | null = null;
    let calls = 0;
    let written = 0;
    do {
      const budget = createInvocationBudget({ kvOperations: 101 }, Date.now() + 30_000);
      const metered = budget.meterKv(kv);
      const cache = createLinkCache(metered, { tenantId, ttlSeconds: 300, logger: silentLogger });
      const from = after === null ? undefined : parseResyncPosition(after);
      const chunk = await resyncLinkCache(sql, cache, { budget, from });
      expect(budget.kvLeft()).toBeGreaterThanOrEqual(0); // the metered store throws past its budget: never
      expect(budget.kvLeft()).toBeLessThan(101);
      expect(chunk.failed).toBe(0);
      written += chunk.written;
      after = chunk.next;
      calls++;
    } while (after !== null && calls < 20);
    expect(after).toBeNull();
    expect(written).toBe(BULK);
    expect(calls).toBeGreaterThanOrEqual(Math.ceil((2 * BULK) / 101));
    expect(await cacheKeys(kv, tenantId)).toHaveLength(BULK);
  });

  // Link ids are one sequence for every tenant: a cursor naming one told an admin, by the gaps,
  // how many links all tenants made in between. A table cursor names the tenant's own last link.
  it("goes on through the table from its own last link, naming nothing of other tenants' rows", async () => {
    const { sql, kv } = harness();
    const insert = (tenantId: string, from: number, to: number) =>
      sql.query(
        `INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
         SELECT '${tenantId}', 'gh', 'id/' || n, 'u-' || n FROM generate_series(${from}, ${to}) AS n`,
      );
    await insert("keyset-mine", 1, 3);
    await insert("keyset-others", 1, 40);
    await insert("keyset-mine", 4, 7);
    const nexts: string[] = [];
    let from: ReturnType<typeof parseResyncPosition>;
    do {
      const budget = createInvocationBudget({ kvOperations: 6 }, Date.now() + 30_000);
      const cache = createLinkCache(budget.meterKv(kv), {
        tenantId: "keyset-mine",
        ttlSeconds: 300,
        logger: silentLogger,
      });
      const { next } = await resyncLinkCache(sql, cache, { budget, from, batchSize: 2 });
      if (next !== null) nexts.push(next);
      from = next === null ? undefined : parseResyncPosition(next);
    } while (from && nexts.length < 30);
    const ownTargets = Array.from({ length: 7 }, (_, i) => `db:gh/id/${i + 1}`);
    const fromTable = nexts.filter((next) => next.startsWith("db:") && next !== "db:0");
    expect(fromTable.length).toBeGreaterThan(1);
    for (const next of fromTable) expect(ownTargets).toContain(next);
    expect(await cacheKeys(kv, "keyset-mine")).toHaveLength(7);
  });

  it("has at most KV_CONCURRENCY store calls in flight, as the sync does", async () => {
    const { sql, kv } = harness();
    const tenantId = "bounded";
    await sql.query(
      `INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
       SELECT '${tenantId}', 'bulk', 'b-' || n, 'u-' || n FROM generate_series(1, ${BULK}) AS n`,
    );
    let inFlight = 0;
    let most = 0;
    const counted =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      async (...args: A) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1)); // long enough for the others to start
        try {
          return await call(...args);
        } finally {
          inFlight--;
        }
      };
    const slow = {
      get: counted(kv.get.bind(kv)),
      put: counted(kv.put.bind(kv)),
      delete: counted(kv.delete.bind(kv)),
      list: counted(kv.list.bind(kv)),
    };
    for (let round = 0; round < 2; round++) {
      const cache = createLinkCache(slow, { tenantId, ttlSeconds: 300, logger: silentLogger });
      expect(await resyncLinkCache(sql, cache)).toMatchObject({ failed: 0, next: null });
    }
    expect(most).toBe(KV_CONCURRENCY);
  });

  it("goes on from `after`, and refuses one no answer gave with 422", async () => {
    const fromTable = await harness().request("/v1/admin/links/resync?after=db:0", { method: "POST", as: admin });
    expect(fromTable.status).toBe(200);
    expect(await fromTable.json()).toMatchObject({ failed: 0, next: null });
    for (const after of ["db:x", "elsewhere", "db:01", "db:9223372036854775808", "db:9999999999999999999"]) {
      const refused = await harness().request(`/v1/admin/links/resync?after=${after}`, { method: "POST", as: admin });
      await expectProblem(refused, 422, "validation_failed");
    }
  });

  it("is for admin tokens only", async () => {
    for (const as of [{ sub: "someone" }, service]) {
      await expectProblem(await harness().request("/v1/admin/links/resync", { method: "POST", as }), 403, "forbidden");
    }
    await expectProblem(
      await harness().request("/v1/admin/links/resync", { method: "POST", as: null }),
      401,
      "unauthorized",
    );
  });

  it("repairs drift both ways, in bounded batches", async () => {
    const { sql, kv } = harness();
    // Links KV has never seen (written straight to Postgres).
    await sql.query(
      `INSERT INTO linked_external_accounts (tenant_id, provider, external_account_id, user_id)
       SELECT 'acme', 'bulk', 'bulk-' || n, 'bulk-user-' || n FROM generate_series(1, ${BULK}) AS n`,
    );
    const missing = await link("github", "missing", "ann");
    const wrongOwner = await link("github", "wrong-owner", "ben");
    const unlinked = await link("github", "unlinked", "cat");
    const expired = await link("github", "expired", "dan");
    await kv.delete(await linkKey("acme", missing));
    await kv.put(
      await linkKey("acme", wrongOwner),
      JSON.stringify({ tenantId: "acme", link: { ...wrongOwner, userId: "mallory" }, readAt: Date.now() }),
      {
        ttlSeconds: 300,
      },
    );
    await sql.query("DELETE FROM linked_external_accounts WHERE external_account_id = 'unlinked'");
    const tooOld = Date.now() - DEFAULT_LINK_CACHE_TTL_SECONDS * 1000 - 1;
    await kv.put(await linkKey("acme", expired), JSON.stringify({ tenantId: "acme", link: expired, readAt: tooOld }), {
      ttlSeconds: 300,
    });
    await kv.put(`${tenantKeyPrefix("acme")}garbage`, "not an entry", { ttlSeconds: 300 });
    const misfiled = `${tenantKeyPrefix("acme")}${"0".repeat(64)}`;
    await kv.put(misfiled, JSON.stringify({ tenantId: "acme", link: wrongOwner, readAt: Date.now() }), {
      ttlSeconds: 300,
    });
    // Another tenant's entry under this tenant's key: never served here, removed.
    const foreign = await linkKey("acme", { provider: "github", externalAccountId: "foreign" });
    const foreignLink = { ...wrongOwner, externalAccountId: "foreign" };
    await kv.put(foreign, JSON.stringify({ tenantId: "other", link: foreignLink, readAt: Date.now() }), {
      ttlSeconds: 300,
    });
    // Another tenant's entries are not this admin's to list, judge or remove.
    const otherTenants = await linkKey("other", { provider: "github", externalAccountId: "unlinked" });
    await kv.put(otherTenants, JSON.stringify({ tenantId: "other", link: unlinked, readAt: Date.now() }), {
      ttlSeconds: 300,
    });

    const rows = BULK + 3; // missing, wrongOwner, expired
    const [first, statements] = await statementsDuring(resync);
    expect(first).toEqual({ written: rows, removed: 4, unchanged: 0, failed: 0, next: null });
    // One statement per KV page (5 entries) and one per table page: never one per link.
    expect(statements).toBe(1 + batches(rows + 1));

    const keys = await cacheKeys(kv);
    expect(keys).toHaveLength(rows);
    expect(keys).not.toContain(await linkKey("acme", unlinked));
    expect(keys).not.toContain(misfiled);
    expect(keys).not.toContain(foreign);
    expect(await kv.get(otherTenants)).not.toBeNull();
    expect((await cachedEntry(kv, wrongOwner))?.link).toEqual(wrongOwner);
    expect((await cachedEntry(kv, missing))?.link).toEqual(missing);
    expect((await cachedEntry(kv, { provider: "bulk", externalAccountId: `bulk-${BULK}` }))?.link.userId).toBe(
      `bulk-user-${BULK}`,
    );
    const served = await harness().request(linkPath("github", "wrong-owner"), { as: service });
    expect(served.headers.get("x-link-source")).toBe("kv");
    expect(await served.json()).toEqual(wrongOwner);

    const [second, secondStatements] = await statementsDuring(resync);
    expect(second).toEqual({ written: 0, removed: 0, unchanged: rows, failed: 0, next: null });
    expect(secondStatements).toBe(batches(rows) + batches(rows + 1));
  });
});
