// A keyed create that finds the key taken by a first use committed while it waited (not in its
// statement's snapshot) reads that first use in a second round trip. When the key expires in
// between, and the cleanup frees it, that read finds nothing. Forced here on the real PostgreSQL:
// the first use is held in an open transaction, the retry blocks behind it, the first commits,
// and the key is expired and cleaned up before the retry's read. The retry must still answer a
// 201 (the key is free by then, so it creates anew), never fail.
import { expect, it } from "vitest";
import { ASSET_KEYS_EXPIRY, createAssetOnce } from "../../core/assets/create-once.ts";
import { createDocument, DOCUMENT_KEYS_EXPIRY } from "../../core/documents/repository.ts";
import { requestFingerprint } from "../../core/idempotency/key.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { expireInBatches } from "../support/expiry.ts";
import { interleave, postgresSessions } from "../support/interleave.ts";

/** `sql`, running `meanwhile` once, after its first statement and before its second. */
function afterFirstStatement(sql: Sql, meanwhile: () => Promise<unknown>): Sql {
  let statements = 0;
  return {
    ...sql,
    query: async (text, params) => {
      if (statements++ === 1) await meanwhile();
      return sql.query(text, params);
    },
  };
}

describeWithPostgres("a keyed create whose key expires before it reads it [postgres]", () => {
  const suite = postgresSessions();

  const caller = () => ({ tenantId: `t-${crypto.randomUUID().slice(0, 8)}`, subject: "alice" });
  const keyed = async (parts: unknown[]) => ({
    key: "order-7",
    fingerprint: await requestFingerprint(parts),
    ttlSeconds: 3600,
  });

  it("documents: the retry numbers a new document, no gap", async () => {
    const who = caller();
    const input = { ...who, contractId: "C-1", title: null, idempotency: await keyed(["C-1", null]) };
    const expire = async () => {
      await suite.pool.query(
        "UPDATE documents SET idempotency_expires_at = now() - interval '1 second' WHERE tenant_id = $1",
        [who.tenantId],
      );
      await expireInBatches(suite.harness.sql, DOCUMENT_KEYS_EXPIRY, 100);
    };
    const { firstResult, secondResult } = await interleave(
      suite.pool,
      (sql) => createDocument(sql, input),
      (sql) => createDocument(afterFirstStatement(sql, expire), input),
    );
    expect(firstResult).toMatchObject({ outcome: "created", document: { docNumber: 1 } });
    expect(secondResult).toMatchObject({ outcome: "created", document: { docNumber: 2 } });
    const { rows } = await suite.pool.query(
      "SELECT doc_number, idempotency_key FROM documents WHERE tenant_id = $1 ORDER BY doc_number",
      [who.tenantId],
    );
    expect(rows).toEqual([
      { doc_number: "1", idempotency_key: null },
      { doc_number: "2", idempotency_key: "order-7" },
    ]);
  });

  it("assets: the retry creates a new asset, which the key then names", async () => {
    const who = caller();
    const fields = { name: "Chair", material: "oak" };
    const idempotency = await keyed([fields.name, fields.material]);
    const expire = async () => {
      await suite.pool.query(
        "UPDATE asset_idempotency_keys SET expires_at = now() - interval '1 second' WHERE tenant_id = $1",
        [who.tenantId],
      );
      await expireInBatches(suite.harness.sql, ASSET_KEYS_EXPIRY, 100);
    };
    const { firstResult, secondResult } = await interleave(
      suite.pool,
      (sql) => createAssetOnce(sql, who, "a-1", fields, idempotency),
      (sql) => createAssetOnce(afterFirstStatement(sql, expire), who, "a-2", fields, idempotency),
    );
    expect(firstResult).toMatchObject({ outcome: "created", asset: { id: "a-1" } });
    expect(secondResult).toMatchObject({ outcome: "created", asset: { id: "a-2" } });
    const { rows } = await suite.pool.query("SELECT asset_id FROM asset_idempotency_keys WHERE tenant_id = $1", [
      who.tenantId,
    ]);
    expect(rows).toEqual([{ asset_id: "a-2" }]);
  });
});
