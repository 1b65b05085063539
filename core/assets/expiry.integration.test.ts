// An asset's Idempotency-Key expires as a document's does (sql/0008): it names its first create
// for IDEMPOTENCY_KEY_TTL_SECONDS, then a reuse creates anew, and the housekeeping removes
// expired keys in bounded batches.
import { expect, it } from "vitest";
import { expireInBatches } from "../../test/support/expiry.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { ASSET_KEYS_EXPIRY } from "./create-once.ts";

const newTenant = () => `t-${crypto.randomUUID().slice(0, 8)}`;

describeOnBackends(
  "asset Idempotency-Keys that expire",
  (harness) => {
    const post = (tid: string, name: string, key: string, sub = "alice") =>
      harness().request("/v1/assets", {
        method: "POST",
        as: { tid, sub },
        body: { name, material: "oak" },
        headers: { "idempotency-key": key },
      });
    const created = async (response: Response) => {
      expect(response.status).toBe(201);
      return {
        id: ((await response.json()) as { id: string }).id,
        replayed: response.headers.get("idempotent-replayed") === "true",
      };
    };
    /** Moves a tenant's keys (or one caller's) into the past, as if `seconds` had gone by. */
    const age = (tid: string, seconds: number, sub?: string) =>
      harness().sql.query(
        `UPDATE asset_idempotency_keys SET created_at = created_at - make_interval(secs => $2::int),
           expires_at = expires_at - make_interval(secs => $2::int)
         WHERE tenant_id = $1 AND subject_id = coalesce($3, subject_id)`,
        [tid, String(seconds), sub ?? null],
      );

    it("replays within IDEMPOTENCY_KEY_TTL_SECONDS (here 3600), creates anew after it with any body", async () => {
      const tid = newTenant();
      const first = await created(await post(tid, "Chair", "k"));
      // 30 s short of the expiry: a margin for a slow first request on a busy machine.
      await age(tid, 3570);
      expect(await created(await post(tid, "Chair", "k"))).toEqual({ id: first.id, replayed: true });
      await age(tid, 30);
      const renewed = await created(await post(tid, "Table", "k"));
      expect(renewed.replayed).toBe(false);
      expect(renewed.id).not.toBe(first.id);
      expect(await created(await post(tid, "Table", "k"))).toEqual({ id: renewed.id, replayed: true });
      expect((await post(tid, "Chair", "k")).status).toBe(422); // the key now names the new request
    });

    it("removes expired keys in batches of at most the limit, and leaves live ones", async () => {
      const tid = newTenant();
      for (let i = 0; i < 5; i++) await created(await post(tid, `A-${i}`, `batch-${i}`));
      await age(tid, 3600);
      await created(await post(tid, "A-live", "live"));
      expect(await expireInBatches(harness().sql, ASSET_KEYS_EXPIRY, 2)).toBeGreaterThanOrEqual(5);
      const keys = await harness().sql.query(
        "SELECT idempotency_key FROM asset_idempotency_keys WHERE tenant_id = $1",
        [tid],
      );
      expect(keys).toEqual([{ idempotency_key: "live" }]);
      expect((await created(await post(tid, "A-0", "batch-0"))).replayed).toBe(false);
    });

    it("expires one caller's key alone: another caller's live key of the same name still replays", async () => {
      const tid = newTenant();
      await created(await post(tid, "Chair of alice", "order-7", "alice"));
      const bobs = await created(await post(tid, "Chair of bob", "order-7", "bob"));
      await age(tid, 3600, "alice");
      await expireInBatches(harness().sql, ASSET_KEYS_EXPIRY, 100);
      expect(await created(await post(tid, "Chair of bob", "order-7", "bob"))).toEqual({ ...bobs, replayed: true });
      const assets = await harness().sql.query("SELECT name FROM assets WHERE tenant_id = $1 ORDER BY name", [tid]);
      expect(assets).toEqual([{ name: "Chair of alice" }, { name: "Chair of bob" }]);
      const keys = await harness().sql.query(
        "SELECT subject_id, idempotency_key FROM asset_idempotency_keys WHERE tenant_id = $1",
        [tid],
      );
      expect(keys).toEqual([{ subject_id: "bob", idempotency_key: "order-7" }]);
    });
  },
  { env: { IDEMPOTENCY_KEY_TTL_SECONDS: "3600" } },
);
