// A retry after an outage is served. Creates refused while PostgreSQL is unreachable (503, or 504
// when the request may have reached it) are retried with their Idempotency-Keys once it is back:
// every key then names exactly one document, numbers stay gapless, and nothing needs a restart.
import { afterAll, beforeAll, expect, it } from "vitest";
import { numberingGaps } from "../hardening/soak.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres.ts";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";

describeWithPostgres("retries after an outage [postgres]", () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let harness: Harness;
  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = await startTcpProxy(Number(new URL(database.url).port || 5432));
    const viaProxy = Object.assign(new URL(database.url), { port: String(proxy.port) }).toString();
    harness = await startHarness({
      backend: "postgres",
      postgresUrl: viaProxy,
      poolSize: 4,
      connectionTimeoutMillis: 1_000,
    });
  });
  afterAll(async () => {
    await harness?.close();
    await proxy?.close();
    await database?.drop();
  });

  const create = (key: string) =>
    harness.request("/v1/documents", {
      method: "POST",
      as: { tid: "outage" },
      headers: { "idempotency-key": key },
      body: { contractId: key },
    });

  it("creates each refused key exactly once when it is retried after PostgreSQL is back", async () => {
    // Pooled connections are open when the outage starts.
    expect((await Promise.all(["k-0", "k-1", "k-2", "k-3"].map(create))).map((r) => r.status)).toEqual([
      201, 201, 201, 201,
    ]);
    await proxy.cut();
    const keys = Array.from({ length: 8 }, (_, i) => `refused-${i}`);
    const refused = await Promise.all(keys.map(create));
    for (const response of refused) {
      expect([503, 504]).toContain(response.status);
      if (response.status === 503) expect(response.headers.get("retry-after")).not.toBeNull();
    }
    await proxy.restore();

    const numbers = new Map<string, number>();
    const back = Date.now();
    for (const key of keys) {
      let response = await create(key);
      while (response.status === 503 && Date.now() - back < 10_000) {
        await new Promise((done) => setTimeout(done, 200));
        response = await create(key);
      }
      expect(response.status, key).toBe(201);
      numbers.set(key, ((await response.json()) as { docNumber: number }).docNumber);
    }
    // A second retry replays the same document.
    for (const key of keys) {
      const again = await create(key);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(((await again.json()) as { docNumber: number }).docNumber).toBe(numbers.get(key));
    }
    expect(new Set(numbers.values()).size).toBe(keys.length);
    expect(await numberingGaps(harness.sql, "outage")).toEqual([]);
    const rows = await harness.sql.query("SELECT count(*)::int AS count FROM documents WHERE tenant_id = 'outage'");
    expect(rows).toEqual([{ count: 4 + keys.length }]);
  }, 40_000);
});
