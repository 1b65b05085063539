// The KV store down, hanging, throwing or handing back garbage: link writes still succeed
// (Postgres decides), reads fall back to Postgres, no request hangs, and once the store is back
// a resync makes it agree with Postgres again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LINK_SOURCE_HEADER } from "../../core/links/routes.ts";
import { linkRows } from "../links/support.ts";
import { createFaultyKv, type KvFault } from "../support/faulty-kv.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { expectProblem } from "../support/problems.ts";
import { expectKvMatchesDatabase } from "./support.ts";

const ADMIN = { sub: "ops", tid: "acme", role: "admin" } as const;
const kv = createFaultyKv();
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ backend: "pglite", kv });
});

afterAll(async () => {
  await harness?.close();
});

const faults: Array<[string, KvFault]> = [
  ["is down", "down"],
  ["never answers", "hang"],
  ["throws synchronously", "throw"],
  ["hands back unreadable values", "garbage"],
];

describe.each(faults)("when the KV store %s", (_, fault) => {
  it("links, looks up and unlinks from Postgres, then a resync repairs the cache", async () => {
    const gone = { provider: "github", externalAccountId: `gone-${fault}` };
    const kept = { provider: "github", externalAccountId: `kept-${fault}` };
    const path = (target: typeof gone) => `/v1/links/${target.provider}/${target.externalAccountId}`;
    const owner = (name: string) => ({ sub: `${name}-${fault}` });

    // Cached while the store works…
    kv.setFault("none");
    expect((await harness.request(path(gone), { method: "PUT", as: owner("u1") })).status).toBe(201);
    expect((await harness.request(path(gone), { as: owner("u1") })).headers.get(LINK_SOURCE_HEADER)).toBe("kv");

    // …then everything goes on without it.
    kv.setFault(fault);
    expect((await harness.request(path(gone), { method: "DELETE", as: owner("u1") })).status).toBe(204);
    expect(await linkRows(harness.sql, gone)).toEqual([]);
    const linked = await harness.request(path(kept), { method: "PUT", as: owner("u2"), body: { displayName: "K" } });
    expect(linked.status).toBe(201);
    expect(await linkRows(harness.sql, kept)).toHaveLength(1);
    for (const query of ["", "?consistency=strong"]) {
      const read = await harness.request(path(kept) + query, { as: owner("u2") });
      expect(read.status).toBe(200);
      expect(read.headers.get(LINK_SOURCE_HEADER)).toBe("db");
      expect(await read.json()).toMatchObject({ userId: `u2-${fault}`, displayName: "K" });
    }
    const mine = await harness.request("/v1/me/links", { as: owner("u2") });
    expect(((await mine.json()) as { items: unknown[] }).items).toHaveLength(1);
    await expectProblem(await harness.request(path(gone), { as: owner("u1") }), 404, "not_found");

    // A resync while the store is still failing says it is not done, and is no server error.
    const failing = await harness.request("/v1/admin/links/resync", { method: "POST", as: ADMIN });
    expect(failing.status).toBe(200);
    if (fault !== "garbage") expect(await failing.json()).toMatchObject({ written: 0, next: "kv:" });
    // So does a sync: not caught up, and no server error either.
    const syncing = await harness.request("/v1/admin/links/sync", { method: "POST", as: ADMIN });
    expect(syncing.status).toBe(200);
    if (fault !== "garbage") expect(await syncing.json()).toMatchObject({ caughtUp: false });

    // Back: one resync and the cache agrees with Postgres, stale entries included.
    kv.setFault("none");
    const resync = await harness.request("/v1/admin/links/resync", { method: "POST", as: ADMIN });
    expect(resync.status).toBe(200);
    expect(await resync.json()).toMatchObject({ failed: 0 });
    await expectKvMatchesDatabase(harness.sql, kv.inner);
    await expectProblem(await harness.request(path(gone), { as: owner("u1") }), 404, "not_found");
    expect((await harness.request(path(kept), { as: owner("u2") })).headers.get(LINK_SOURCE_HEADER)).toBe("kv");
  });
});
