// Idempotency keys expire (sql/0011): a key names its document for IDEMPOTENCY_KEY_TTL_SECONDS,
// after that a reuse creates anew, and the housekeeping clears expired keys in bounded batches.
import { expect, it } from "vitest";
import { expireInBatches } from "../../test/support/expiry.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { DOCUMENT_KEYS_EXPIRY } from "./repository.ts";

const newTenant = () => `t-${crypto.randomUUID().slice(0, 8)}`;

describeOnBackends(
  "Idempotency-Keys that expire",
  (harness) => {
    const post = (tid: string, contractId: string, key: string, sub = "alice") =>
      harness().request("/v1/documents", {
        method: "POST",
        as: { tid, sub },
        body: { contractId },
        headers: { "idempotency-key": key },
      });
    const created = async (response: Response) => {
      expect(response.status).toBe(201);
      return {
        ...((await response.json()) as { id: string; docNumber: number }),
        replayed: response.headers.get("idempotent-replayed") === "true",
      };
    };
    /** Moves a tenant's keyed documents (or one caller's) into the past, as if `seconds` had gone by. */
    const age = (tid: string, seconds: number, expiry: "kept" | "none" = "kept", sub?: string) =>
      harness().sql.query(
        `UPDATE documents SET created_at = created_at - make_interval(secs => $2::int),
           idempotency_expires_at = CASE WHEN $3 = 'none' THEN NULL
             ELSE idempotency_expires_at - make_interval(secs => $2::int) END
         WHERE tenant_id = $1 AND idempotency_key IS NOT NULL AND idempotency_subject = coalesce($4, idempotency_subject)`,
        [tid, String(seconds), expiry, sub ?? null],
      );

    it("keeps a key for IDEMPOTENCY_KEY_TTL_SECONDS (here 3600) after its document's creation", async () => {
      const tid = newTenant();
      await created(await post(tid, "C-1", "k"));
      const [row] = await harness().sql.query(
        "SELECT extract(epoch FROM idempotency_expires_at - created_at)::int AS ttl FROM documents WHERE tenant_id = $1",
        [tid],
      );
      expect(row).toEqual({ ttl: 3600 });
      // 30 s short of the expiry: a margin for a slow first request on a busy machine.
      await age(tid, 3570);
      expect(await created(await post(tid, "C-1", "k"))).toMatchObject({ docNumber: 1, replayed: true });
    });

    it("creates anew when an expired key comes back, with any body; the new document then owns the key", async () => {
      const tid = newTenant();
      const original = await created(await post(tid, "C-1", "k"));
      await age(tid, 3600);
      const renewed = await created(await post(tid, "C-other", "k"));
      expect(renewed).toMatchObject({ docNumber: 2, replayed: false });
      expect(await created(await post(tid, "C-other", "k"))).toEqual({ ...renewed, replayed: true });
      expect((await post(tid, "C-1", "k")).status).toBe(422); // the key now names the new request
      const rows = await harness().sql.query(
        "SELECT doc_number, idempotency_key FROM documents WHERE tenant_id = $1 ORDER BY doc_number",
        [tid],
      );
      expect(rows).toEqual([
        { doc_number: "1", idempotency_key: null },
        { doc_number: "2", idempotency_key: "k" },
      ]);
      expect(original.id).not.toBe(renewed.id);
    });

    it("lets a key stored without an expiry (by the release before it) live a day after its document", async () => {
      const tid = newTenant();
      await created(await post(tid, "C-1", "old"));
      await age(tid, 23 * 3600, "none");
      expect(await created(await post(tid, "C-1", "old"))).toMatchObject({ docNumber: 1, replayed: true });
      await age(tid, 2 * 3600, "none");
      expect(await created(await post(tid, "C-1", "old"))).toMatchObject({ docNumber: 2, replayed: false });
    });

    it("keeps a key stored before keys had callers (sql/0014) the tenant's, as it was, until it expires", async () => {
      const tid = newTenant();
      const alices = await created(await post(tid, "C-1", "shared"));
      // As the release before callers stored it: no subject.
      await harness().sql.query("UPDATE documents SET idempotency_subject = '' WHERE tenant_id = $1", [tid]);
      expect(await created(await post(tid, "C-1", "shared", "bob"))).toEqual({ ...alices, replayed: true });
      expect((await post(tid, "C-other", "shared", "bob")).status).toBe(422);
      await age(tid, 3600);
      expect(await created(await post(tid, "C-other", "shared", "bob"))).toMatchObject({
        docNumber: 2,
        replayed: false,
      });
    });

    it("clears expired keys in batches of at most the limit, and leaves live ones", async () => {
      const tid = newTenant();
      for (let i = 0; i < 5; i++) await created(await post(tid, `C-${i}`, `batch-${i}`));
      await age(tid, 3600);
      await created(await post(tid, "C-live", "live"));
      expect(await expireInBatches(harness().sql, DOCUMENT_KEYS_EXPIRY, 2)).toBeGreaterThanOrEqual(5);
      const keys = await harness().sql.query(
        "SELECT idempotency_key, request_fingerprint FROM documents WHERE tenant_id = $1 AND idempotency_key IS NOT NULL",
        [tid],
      );
      expect(keys).toEqual([{ idempotency_key: "live", request_fingerprint: expect.any(String) }]);
      // A cleared key is free: its reuse numbers a new document.
      expect(await created(await post(tid, "C-0", "batch-0"))).toMatchObject({ docNumber: 7, replayed: false });
    });

    it("expires one caller's key alone: another caller's live key of the same name still replays", async () => {
      const tid = newTenant();
      await created(await post(tid, "C-alice", "order-7", "alice"));
      const bobs = await created(await post(tid, "C-bob", "order-7", "bob"));
      await age(tid, 3600, "kept", "alice");
      await expireInBatches(harness().sql, DOCUMENT_KEYS_EXPIRY, 100);
      const keys = await harness().sql.query(
        "SELECT idempotency_subject, idempotency_key FROM documents WHERE tenant_id = $1 AND idempotency_key IS NOT NULL",
        [tid],
      );
      expect(keys).toEqual([{ idempotency_subject: "bob", idempotency_key: "order-7" }]);
      expect(await created(await post(tid, "C-bob", "order-7", "bob"))).toEqual({ ...bobs, replayed: true });
      expect(await created(await post(tid, "C-alice", "order-7", "alice"))).toMatchObject({ docNumber: 3 });
    });
  },
  { env: { IDEMPOTENCY_KEY_TTL_SECONDS: "3600" } },
);
