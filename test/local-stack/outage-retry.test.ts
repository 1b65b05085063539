// A retry after an outage is served. Creates refused while PostgreSQL is unreachable (503, or 504
// when the request may have reached it) are retried with their Idempotency-Keys once it is back:
// every key then names exactly one document, numbers stay gapless, and nothing needs a restart.
import { expect, it } from "vitest";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { numberingGaps } from "../hardening/invariants.ts";
import { relayedHarness } from "./relayed-harness.ts";

describeWithPostgres("retries after an outage [postgres]", () => {
  const relayed = relayedHarness("outage", { poolSize: 4, connectionTimeoutMillis: 1_000 });
  const create = (key: string) => relayed().create(key);

  it("creates each refused key exactly once when it is retried after PostgreSQL is back", async () => {
    // Pooled connections are open when the outage starts.
    expect((await Promise.all(["k-0", "k-1", "k-2", "k-3"].map(create))).map((r) => r.status)).toEqual([
      201, 201, 201, 201,
    ]);
    await relayed().proxy.cut();
    const keys = Array.from({ length: 8 }, (_, i) => `refused-${i}`);
    const refused = await Promise.all(keys.map(create));
    for (const response of refused) {
      expect([503, 504]).toContain(response.status);
      if (response.status === 503) expect(response.headers.get("retry-after")).not.toBeNull();
    }
    await relayed().proxy.restore();

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
    expect(await numberingGaps(relayed().harness.sql, "outage")).toEqual([]);
    const rows = await relayed().harness.sql.query(
      "SELECT count(*)::int AS count FROM documents WHERE tenant_id = 'outage'",
    );
    expect(rows).toEqual([{ count: 4 + keys.length }]);
  }, 40_000);
});
