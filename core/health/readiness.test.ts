import { describe, expect, it } from "vitest";
import { TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { createApp } from "../app.ts";
import { silentLogger } from "../log.ts";
import { DatabaseUnavailableError, type Sql } from "../ports/sql.ts";
import { parseSettings } from "../settings/settings.ts";
import { READINESS_MAX_AGE_MS, recentReadiness } from "./readiness.ts";

/** A database whose every query is counted, answering as `answer()` says at the time. */
function countingSql(answer: () => boolean = () => true) {
  const counted = { queries: 0 };
  const query = async () => {
    counted.queries++;
    if (!answer()) throw new DatabaseUnavailableError("connection refused");
    return [{ ok: 1 }];
  };
  return { counted, sql: { query, transaction: () => Promise.reject(new Error("unused")) } as unknown as Sql };
}

/** The check as a yes or no. */
const readinessOf =
  (check: (sql: Sql) => Promise<{ ready: boolean }>) =>
  async (sql: Sql): Promise<boolean> =>
    (await check(sql)).ready;

describe("recentReadiness", () => {
  it("asks the database once for every probe within a second, the one in flight included", async () => {
    let clock = 0;
    const isReady = readinessOf(recentReadiness(silentLogger, READINESS_MAX_AGE_MS, () => clock));
    const { counted, sql } = countingSql();
    expect(await Promise.all(Array.from({ length: 50 }, () => isReady(sql)))).toEqual(Array(50).fill(true));
    clock = READINESS_MAX_AGE_MS - 1;
    expect(await isReady(sql)).toBe(true);
    expect(counted.queries).toBe(1);
    clock = READINESS_MAX_AGE_MS;
    expect(await isReady(sql)).toBe(true);
    expect(counted.queries).toBe(2);
  });

  it("keeps a failure for the second too, and sees the database again after it", async () => {
    let clock = 0;
    let up = false;
    const isReady = readinessOf(recentReadiness(silentLogger, READINESS_MAX_AGE_MS, () => clock));
    const { counted, sql } = countingSql(() => up);
    expect(await isReady(sql)).toBe(false);
    up = true;
    expect(await isReady(sql)).toBe(false);
    clock = READINESS_MAX_AGE_MS;
    expect(await isReady(sql)).toBe(true);
    expect(counted.queries).toBe(2);
  });
});

describe("GET /readyz", () => {
  it("a flood of probes costs one database round trip per instance", async () => {
    const { counted, sql } = countingSql();
    const settings = parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET });
    const instance = () => createApp({ sql, kv: createMemoryKv(), settings, runtime: "node", logger: silentLogger });
    const [first, second] = [instance(), instance()];
    const flood = [...Array(100).fill(first), ...Array(100).fill(second)];
    const statuses = await Promise.all(flood.map(async (app) => (await app.request("/readyz")).status));
    expect(statuses).toEqual(Array(200).fill(200));
    expect(counted.queries).toBe(2);
  });
});
