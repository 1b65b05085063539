// A second deployment over the same database, whose KV store someone else wrote before its first
// request (dev/launchers/planted-kv.ts): a cached link naming a "victim", read (it claims) 30 days
// from now, and a sync cursor past the end of the change feed. Neither decides an answer: the
// entry is no hit, and the cursor is discarded so that the next sync applies what it skipped.
import { expect, it } from "vitest";
import { linkKey } from "../../../core/links/kv-keys.ts";
import { SYNC_CURSOR_KEY } from "../../../core/links/sync.ts";
import type { KvEntries } from "../../../dev/launchers/planted-kv.ts";
import { type Call, expectProblem, expectStatus, freshTenant, unique } from "../client.ts";

const tenant = freshTenant();
const planted = { provider: "github", externalAccountId: unique("planted") };
const DAY_MS = 86_400_000;
/** The largest xid8: past every horizon. Taken as it stands, every sync would "catch up" at once, applying nothing. */
export const PLANTED_CURSOR = "18446744073709551615:0";
const SYNC_DEADLINE_MS = 20_000;

export async function plantedLinkEntries(): Promise<KvEntries> {
  const link = { ...planted, userId: "victim", displayName: null, linkedAt: new Date().toISOString() };
  return {
    [await linkKey(tenant, planted)]: JSON.stringify({ tenantId: tenant, link, readAt: Date.now() + 30 * DAY_MS }),
    [SYNC_CURSOR_KEY]: PLANTED_CURSOR,
  };
}

/** `call`: a deployment over the database; `callPlanted`: the one whose store holds the entries. */
export function plantedLinkCases(call: Call, callPlanted: Call) {
  const service = { sub: "svc", tid: tenant, role: "service" } as const;
  const admin = { sub: "ops", tid: tenant, role: "admin" } as const;
  const path = (id: string) => `/v1/links/github/${encodeURIComponent(id)}`;

  it("a cached link claiming to be read 30 days from now is no hit: Postgres answers, and the account is free", async () => {
    const lookup = await callPlanted("GET", path(planted.externalAccountId), { as: service });
    expectProblem(lookup, 404, "not_found");
    expect(lookup.headers.get("x-link-source")).toBeNull();
    const owner = { sub: unique("owner"), tid: tenant };
    expectStatus(await callPlanted("PUT", path(planted.externalAccountId), { as: owner }), 201);
    const linked = await callPlanted("GET", path(planted.externalAccountId), { as: service });
    expect([linked.status, linked.json?.userId]).toEqual([200, owner.sub]);
  });

  it(`a sync cursor past the feed's end (${PLANTED_CURSOR}) is discarded: an unlink made elsewhere reaches this cache`, async () => {
    const owner = { sub: unique("owner"), tid: tenant };
    const account = path(unique("synced"));
    expectStatus(await callPlanted("PUT", account, { as: owner }), 201);
    const cached = await callPlanted("GET", account, { as: service });
    expect([cached.status, cached.headers.get("x-link-source")]).toEqual([200, "kv"]);
    // Through the other deployment: this one's copy is left for its sync to remove.
    expectStatus(await call("DELETE", account, { as: owner }), 204);
    const deadline = Date.now() + SYNC_DEADLINE_MS;
    let lookup = cached;
    while (lookup.status === 200 && Date.now() < deadline) {
      expectStatus(await callPlanted("POST", "/v1/admin/links/sync", { as: admin }), 200);
      lookup = await callPlanted("GET", account, { as: service });
    }
    expectProblem(lookup, 404, "not_found");
  });
}
