// Lost updates under real concurrency: only the real PostgreSQL has concurrent sessions (PGlite
// runs one statement at a time and could never show a race). Requests go through the whole
// production path: app → Neon client → local endpoint → PostgreSQL pool.
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { signToken } from "../../dev/support/tokens.ts";
import { type FetchLike, updateAssetOverHttp } from "../support/asset-client.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { createAsset, freshId, getAsset, patchAsset } from "./helpers.ts";

const CONCURRENCY = 50;
const POOL_SIZE = 20;
const ROUNDS = 3;

function statusCounts(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1;
  return counts;
}

describeWithPostgres("assets races [postgres]", () => {
  let harness: Harness;
  const h = () => harness;
  beforeAll(async () => {
    harness = await startHarness({ backend: "postgres", poolSize: POOL_SIZE });
    // Open every pooled connection first: while connections are still being opened, requests
    // reach PostgreSQL one after another and would race far less than they do in production.
    await Promise.all(Array.from({ length: 2 * POOL_SIZE }, () => harness.sql.query("SELECT pg_sleep(0.05)")));
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
  });

  it(`${CONCURRENCY} concurrent PATCHes with the same ETag: exactly one 200, the rest 412, the winner's change intact`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { id, etag } = await createAsset(h());
      const responses = await Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) => patchAsset(h(), id, etag, { name: `writer ${i}` })),
      );
      expect(statusCounts(responses)).toEqual({ 200: 1, 412: CONCURRENCY - 1 });
      const winner = responses.find((r) => r.status === 200)!;
      const won = await winner.json();
      expect(await getAsset(h(), id)).toEqual({ status: 200, etag: winner.headers.get("etag"), body: won });
      expect(won.name).toMatch(/^writer \d+$/);
    }
  });

  it("the article's A/B scenario: B's material change survives A's stale name change", async () => {
    const { id } = await createAsset(h(), { name: "Chair", material: "oak" });
    const a = await getAsset(h(), id);
    const b = await getAsset(h(), id);
    expect(a.etag).toBe(b.etag);

    const bWrites = await patchAsset(h(), id, b.etag, { material: "steel" });
    expect(bWrites.status).toBe(200);
    const aWrites = await patchAsset(h(), id, a.etag, { name: "Armchair" });
    expect(aWrites.status).toBe(412);
    expect((await getAsset(h(), id)).body).toMatchObject({ name: "Chair", material: "steel" });

    // A recovers as documented: fetch the latest, merge, retry with its ETag.
    const fetchFn: FetchLike = async (request) => h().app.fetch(request);
    const recovered = await updateAssetOverHttp(fetchFn, "http://api.test", id, () => ({ name: "Armchair" }), {
      token: await signToken(),
    });
    expect(recovered.asset).toMatchObject({ name: "Armchair", material: "steel" });
  });

  it(`${CONCURRENCY} concurrent PUTs with If-None-Match: * for one id: exactly one 201, the rest 412`, async () => {
    const id = freshId("put");
    const responses = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) =>
        h().request(`/v1/assets/${id}`, {
          method: "PUT",
          body: { name: `creator ${i}`, material: "oak" },
          headers: { "if-none-match": "*" },
        }),
      ),
    );
    expect(statusCounts(responses)).toEqual({ 201: 1, 412: CONCURRENCY - 1 });
    const created = await responses.find((r) => r.status === 201)!.json();
    expect((await getAsset(h(), id)).body).toEqual(created);
  });

  it(`${CONCURRENCY} concurrent POSTs with one Idempotency-Key: one asset, every answer the same 201`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const as = { tid: freshId("idem") };
      const key = freshId("key");
      const responses = await Promise.all(
        Array.from({ length: CONCURRENCY }, () =>
          h().request("/v1/assets", {
            method: "POST",
            as,
            body: { name: "Chair", material: "oak" },
            headers: { "idempotency-key": key },
          }),
        ),
      );
      expect(statusCounts(responses)).toEqual({ 201: CONCURRENCY });
      const bodies = await Promise.all(responses.map((r) => r.json()));
      expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
      expect(new Set(responses.map((r) => r.headers.get("etag"))).size).toBe(1);
      expect(responses.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1);
      const rows = await h().sql.query("SELECT id FROM assets WHERE tenant_id = $1", [as.tid]);
      expect(rows).toEqual([{ id: bodies[0].id }]);
    }
  });

  it("20 concurrent reuses of an expired key: one new asset, every answer that one, none the expired key's", async () => {
    for (let round = 0; round < 10; round++) {
      const as = { tid: freshId("reuse") };
      const post = () =>
        h().request("/v1/assets", {
          method: "POST",
          as,
          body: { name: "Chair", material: "oak" },
          headers: { "idempotency-key": "monthly" },
        });
      const first = (await (await post()).json()) as { id: string };
      await h().sql.query("UPDATE asset_idempotency_keys SET expires_at = now() WHERE tenant_id = $1", [as.tid]);
      const responses = await Promise.all(Array.from({ length: 20 }, post));
      expect(statusCounts(responses)).toEqual({ 201: 20 });
      expect(responses.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1);
      const ids = new Set(((await Promise.all(responses.map((r) => r.json()))) as { id: string }[]).map((b) => b.id));
      expect(ids.size).toBe(1);
      expect(ids.has(first.id)).toBe(false);
      const rows = await h().sql.query("SELECT id FROM assets WHERE tenant_id = $1", [as.tid]);
      expect(rows).toHaveLength(2);
    }
  });

  it("concurrent POSTs with one Idempotency-Key and two bodies: one asset; the other body's requests 422", async () => {
    const as = { tid: freshId("idem") };
    const responses = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) =>
        h().request("/v1/assets", {
          method: "POST",
          as,
          body: { name: i % 2 ? "Chair" : "Table", material: "oak" },
          headers: { "idempotency-key": "contested" },
        }),
      ),
    );
    const rows = await h().sql.query<{ name: string }>("SELECT name FROM assets WHERE tenant_id = $1", [as.tid]);
    expect(rows).toHaveLength(1);
    const winner = rows[0]!.name;
    for (const [i, response] of responses.entries()) {
      expect(response.status).toBe((i % 2 ? "Chair" : "Table") === winner ? 201 : 422);
    }
  });

  it("two callers of one tenant sending the same key at once: each gets its own asset, never 422 nor the other's", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const tid = freshId("idem");
      const callers = ["alice", "bob"];
      const sent = Array.from({ length: CONCURRENCY }, (_, i) => callers[i % 2]!);
      const responses = await Promise.all(
        sent.map((sub) =>
          h().request("/v1/assets", {
            method: "POST",
            as: { tid, sub },
            body: { name: `Chair of ${sub}`, material: "oak" },
            headers: { "idempotency-key": "order-7" },
          }),
        ),
      );
      expect(statusCounts(responses)).toEqual({ 201: CONCURRENCY });
      const bodies = (await Promise.all(responses.map((r) => r.json()))) as { id: string; name: string }[];
      for (const sub of callers) {
        const own = bodies.filter((_, i) => sent[i] === sub);
        expect(new Set(own.map((body) => body.id)).size).toBe(1);
        expect(own[0]!.name).toBe(`Chair of ${sub}`);
      }
      const rows = await h().sql.query("SELECT name FROM assets WHERE tenant_id = $1 ORDER BY name", [tid]);
      expect(rows).toEqual([{ name: "Chair of alice" }, { name: "Chair of bob" }]);
    }
  });

  it("a key stored before keys had callers is the tenant's, as it was, until it expires", async () => {
    const tid = freshId("legacy");
    const post = (sub: string, name: string) =>
      h().request("/v1/assets", {
        method: "POST",
        as: { tid, sub },
        body: { name, material: "oak" },
        headers: { "idempotency-key": "legacy" },
      });
    const first = await post("alice", "Chair");
    expect(first.status).toBe(201);
    // As the release before callers stored it: no subject.
    await h().sql.query("UPDATE asset_idempotency_keys SET subject_id = '' WHERE tenant_id = $1", [tid]);
    const replayed = await post("bob", "Chair");
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect((await post("bob", "Table")).status).toBe(422);

    await h().sql.query("UPDATE asset_idempotency_keys SET expires_at = now() WHERE tenant_id = $1", [tid]);
    const fresh = await post("bob", "Table");
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    const rows = await h().sql.query("SELECT name FROM assets WHERE tenant_id = $1 ORDER BY name", [tid]);
    expect(rows).toEqual([{ name: "Chair" }, { name: "Table" }]);
  });

  it("PATCH, approve and DELETE racing on one ETag: exactly one wins, the others 412 (or 404 after a delete)", async () => {
    for (let round = 0; round < 5; round++) {
      const { id, etag } = await createAsset(h());
      const headers = { "if-match": etag };
      const [patched, approved, deleted] = await Promise.all([
        patchAsset(h(), id, etag, { name: "patched" }),
        h().request(`/v1/assets/${id}/approve`, { method: "POST", headers }),
        h().request(`/v1/assets/${id}`, { method: "DELETE", headers }),
      ]);
      const statuses = [patched.status, approved.status, deleted.status];
      expect(statuses.filter((s) => s === 200 || s === 204)).toHaveLength(1);
      // A loser that ran entirely after the winning DELETE finds nothing: 404 rather than 412.
      const losers = deleted.status === 204 ? [412, 404] : [412];
      expect(statuses.filter((s) => losers.includes(s))).toHaveLength(2);
      const final = await getAsset(h(), id);
      if (deleted.status === 204) expect(final.status).toBe(404);
      if (approved.status === 200) expect(final.body).toMatchObject({ name: "Chair", status: "approved" });
      if (patched.status === 200) expect(final.body).toMatchObject({ name: "patched", status: "draft" });
    }
  });

  it("concurrent imports of the same rows: each asset is written by exactly one row", async () => {
    const assets = await Promise.all(Array.from({ length: 20 }, () => createAsset(h())));
    const uploads = 10;
    const responses = await Promise.all(
      Array.from({ length: uploads }, (_, u) => {
        const rows = assets.map((a) => `${a.id},upload ${u},oak,${a.etag.slice(1, -1)}`);
        const body = ["id,name,material,source_etag", ...rows].join("\n");
        return h().request("/v1/assets/import", { method: "POST", body, headers: { "content-type": "text/csv" } });
      }),
    );
    const results = await Promise.all(
      responses.map(async (r) => (await r.json()).results as Array<{ id: string; outcome: string; etag?: string }>),
    );
    for (const asset of assets) {
      const rows = results.map((rs, u) => ({ u, row: rs.find((r) => r.id === asset.id)! }));
      const winners = rows.filter(({ row }) => row.outcome === "updated");
      expect(winners).toHaveLength(1);
      expect(rows.filter(({ row }) => row.outcome === "conflict")).toHaveLength(uploads - 1);
      const final = await getAsset(h(), asset.id);
      expect(final.body.name).toBe(`upload ${winners[0]!.u}`);
      expect(final.etag).toBe(`"${winners[0]!.row.etag}"`);
    }
  });

  it("concurrent clients using the recovery helper lose no update", async () => {
    const { id } = await createAsset(h(), { name: "Shared", material: "base" });
    const fetchFn: FetchLike = async (request) => h().app.fetch(request);
    const token = await signToken();
    const clients = 10;
    // Every client reads before any writes, so all but one lose the first round for sure.
    let firstReads = 0;
    let allRead!: () => void;
    const everyoneHasRead = new Promise<void>((resolve) => (allRead = resolve));
    const merge = (c: number) => async (latest: { material: string }) => {
      if (latest.material === "base" && ++firstReads === clients) allRead();
      await everyoneHasRead;
      return { material: `${latest.material}+${c}` };
    };
    // A client loses a round only to another client's write, and each writes once: `clients`
    // rounds always suffice.
    const results = await Promise.all(
      Array.from({ length: clients }, (_, c) =>
        updateAssetOverHttp(fetchFn, "http://api.test", id, merge(c), { token, maxAttempts: clients }),
      ),
    );
    const material: string = (await getAsset(h(), id)).body.material;
    const marks = material
      .split("+")
      .slice(1)
      .map(Number)
      .sort((x, y) => x - y);
    expect(marks).toEqual(Array.from({ length: clients }, (_, c) => c));
    expect(results.filter((r) => r.attempts === 1)).toHaveLength(1);
  });
});
