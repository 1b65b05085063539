// The local stack through the REAL Neon driver, held to what Neon's proxy does where only a real
// PostgreSQL can show it: sessions run under timeouts, an abandoned request does not run on, a
// busy pool queues, and an outage heals by itself.

import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type LocalStack, startLocalStack } from "../../dev/local-stack/stack.ts";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../../dev/support/postgres.ts";
import { neonFailure } from "../support/neon-driver.ts";
import { type Driver, dispose, driverFor, type Opened, one, open } from "./stack-driver.ts";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";

describeWithPostgres("Neon fidelity over PostgreSQL: cancel, queue, timeouts, outage", () => {
  let opened: Opened;
  let sql: Driver;
  beforeAll(async () => {
    opened = await open("postgres", { poolSize: 2 });
    sql = driverFor(opened.stack);
  });
  afterAll(() => dispose(opened));

  it("runs every session under statement and lock timeouts below the driver's 10 s deadline", async () => {
    expect(await one(sql, "SHOW statement_timeout")).toBe("5s");
    expect(await one(sql, "SHOW lock_timeout")).toBe("4s");
  });

  it("cancels the statement of a client that went away, as Neon does", async () => {
    const marker = `cancel_${Date.now()}`;
    const aborted = sql.query(`SELECT pg_sleep(4) AS ${marker}`, [], {
      fetchOptions: { signal: AbortSignal.timeout(300) },
    });
    await expect(aborted).rejects.toThrow();
    const admin = new pg.Client({ connectionString: opened.database!.url });
    await admin.connect();
    try {
      const running = async () =>
        Number(
          (
            await admin.query("SELECT count(*) FROM pg_stat_activity WHERE query LIKE $1 AND state = 'active'", [
              `%${marker}%`,
            ])
          ).rows[0].count,
        );
      const deadline = Date.now() + 1_500;
      while ((await running()) > 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
      expect(await running()).toBe(0);
    } finally {
      await admin.end();
    }
  });

  it("queues requests when every pooled connection is busy instead of failing them", async () => {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => one(sql, "SELECT $1::int FROM pg_sleep(0.3)", [i])),
    );
    expect(answers).toEqual([0, 1, 2, 3, 4, 5]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(800); // 3 rounds of 2: they really queued
  });
});

describeWithPostgres("Neon fidelity over PostgreSQL: recovery after an outage", () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let stack: LocalStack;
  let sql: Driver;
  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = await startTcpProxy(Number(new URL(database.url).port || 5432));
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    stack = await startLocalStack({ databaseUrl: viaProxy.toString(), poolSize: 4, connectionTimeoutMillis: 1_000 });
    sql = driverFor(stack);
  });
  afterAll(async () => {
    await stack?.close();
    await proxy?.close();
    await database?.drop();
  });

  it("refuses with 503 while PostgreSQL is unreachable and serves again within seconds once it is back", async () => {
    // Several pooled connections are open when the outage starts.
    await Promise.all(Array.from({ length: 4 }, () => sql.query("SELECT pg_sleep(0.05)")));
    await proxy.cut();
    for (let i = 0; i < 3; i++) {
      const error = await neonFailure(sql.query("SELECT 1"));
      expect(error.message).toMatch(/HTTP status (503|500)/);
    }
    await proxy.restore();
    const back = Date.now();
    let served = false;
    while (!served && Date.now() - back < 5_000) {
      served = await sql.query("SELECT 1").then(
        () => true,
        () => false,
      );
      if (!served) await new Promise((done) => setTimeout(done, 100));
    }
    expect(served).toBe(true);
    // No dead pooled connection is handed out afterwards.
    for (let i = 0; i < 10; i++) expect(await one(sql, "SELECT $1::int", [i])).toBe(i);
  });
});
