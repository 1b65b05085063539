// The housekeeping's batches of expired document keys cost their batch, not the backlog behind it
// nor the live keys of every tenant: each reads at most its batch's rows from the index, locks
// them and clears them, on a database seeded so the planner has a choice (statistics taken).
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DOCUMENT_KEYS_EXPIRY } from "../../core/documents/repository.ts";
import { describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { migratedDatabase, rowsRead } from "./plans.ts";

const BATCH = 100;
/** Found in the index, locked by id, cleared by id: each at most the batch. */
const BATCH_READS = 3 * BATCH;

describeWithPostgres("a batch of expired document keys", () => {
  let database: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    ({ database, client } = await migratedDatabase());
    // Numbered here: the trigger's counter is not what these statements read.
    await client.query("ALTER TABLE documents DISABLE TRIGGER USER");
    // The statistics are the ones each test takes: none taken behind its back.
    await client.query("ALTER TABLE documents SET (autovacuum_enabled = false)");
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  /** 60,000 documents of the past year without a key, `live` keyed ones, and expired keys of either kind. */
  async function seed({
    expired = 0,
    withoutExpiry = 0,
    live,
  }: {
    expired?: number;
    withoutExpiry?: number;
    live: number;
  }) {
    await client.query("TRUNCATE documents");
    await client.query(
      `INSERT INTO documents (tenant_id, doc_number, contract_id, idempotency_key, request_fingerprint,
         idempotency_expires_at, created_at)
       SELECT 'acme', n, 'C', CASE WHEN kind <> 'plain' THEN 'key-' || n END,
         CASE WHEN kind <> 'plain' THEN 'fp' END,
         CASE kind WHEN 'expired' THEN now() - interval '1 hour' + n * interval '1 ms'
                   WHEN 'live' THEN now() + interval '1 hour' + n * interval '1 ms' END,
         CASE kind WHEN 'plain' THEN now() - interval '1 year' + n * interval '1 minute'
                   WHEN 'without-expiry' THEN now() - interval '2 days' + n * interval '1 ms' ELSE now() END
       FROM (SELECT n, CASE WHEN n <= 60000 THEN 'plain' WHEN n <= 60000 + $1 THEN 'live'
                            WHEN n <= 60000 + $1 + $2 THEN 'expired' ELSE 'without-expiry' END AS kind
             FROM generate_series(1, 60000 + $1 + $2 + $3) AS n) AS numbered`,
      [live, expired, withoutExpiry],
    );
    await client.query("ANALYZE documents");
  }

  const batchReads = () => rowsRead(client, "documents", DOCUMENT_KEYS_EXPIRY, [String(BATCH)]);

  it("reads a batch's keys of a backlog 100 times as long, not the backlog", async () => {
    await seed({ expired: 100 * BATCH, live: 10_000 });
    expect(await batchReads()).toBeLessThanOrEqual(BATCH_READS);
  });

  it("reads a batch's keys stored without an expiry, not every keyed document", async () => {
    await seed({ withoutExpiry: 100 * BATCH, live: 10_000 });
    expect(await batchReads()).toBeLessThanOrEqual(BATCH_READS);
  });

  it("ends a run (a batch that comes back short) without reading the live keys", async () => {
    // The statistics still count the backlog the run's earlier batches cleared: the planner
    // expects the first range to fill the batch.
    await seed({ expired: 100 * BATCH, live: 10_000 });
    await client.query(
      `UPDATE documents SET idempotency_key = NULL, request_fingerprint = NULL, idempotency_expires_at = NULL
       WHERE idempotency_expires_at <= now() AND doc_number > $1`,
      [60_000 + 10_000 + BATCH / 2],
    );
    expect(await batchReads()).toBeLessThanOrEqual(BATCH_READS);
  });
});
