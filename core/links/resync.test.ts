import { expect, it } from "vitest";
import { cachedEntry, cacheKeys, linkPath } from "../../test/links/support.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { expectProblem } from "../../test/support/problems.ts";
import type { TokenClaims } from "../../test/support/tokens.ts";
import { DEFAULT_LINK_CACHE_TTL_SECONDS } from "../settings.ts";
import { linkKey, tenantKeyPrefix } from "./keys.ts";
import type { Link } from "./link.ts";
import { DEFAULT_RESYNC_BATCH_SIZE, type ResyncCounts } from "./resync.ts";

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
    expect(first).toEqual({ written: rows, removed: 4, unchanged: 0, failed: 0 });
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
    expect(second).toEqual({ written: 0, removed: 0, unchanged: rows, failed: 0 });
    expect(secondStatements).toBe(batches(rows) + batches(rows + 1));
  });
});
