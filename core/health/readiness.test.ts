import { describe, expect, it } from "vitest";
import { TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { createApp } from "../app.ts";
import { type Logger, silentLogger } from "../log.ts";
import { DatabaseError, DatabaseUnavailableError, type Sql } from "../ports/sql.ts";
import { parseSettings } from "../settings/settings.ts";
import { NEWEST_MIGRATION } from "./newest-migration.ts";
import { READINESS_MAX_AGE_MS, READINESS_STATEMENT, recentReadiness } from "./readiness.ts";

/** A database whose every query is counted, answering as `answer()` says at the time. */
function countingSql(answer: () => boolean = () => true) {
  const counted = { queries: 0 };
  const query = async () => {
    counted.queries++;
    if (!answer()) throw new DatabaseUnavailableError("connection refused");
    return [{ migrated: true, newest: NEWEST_MIGRATION }];
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

/** A database that answers the check's statement from `recorded`, the names schema_migrations holds. */
function databaseRecording(recorded: readonly string[]) {
  const query = async (text: string, params: readonly unknown[]) => {
    expect([text, params]).toEqual([READINESS_STATEMENT, [NEWEST_MIGRATION]]);
    const newest = recorded.toSorted().at(-1) ?? null;
    return [{ migrated: recorded.includes(params[0] as string), newest }];
  };
  return { query, transaction: () => Promise.reject(new Error("unused")) } as unknown as Sql;
}

describe("recentReadiness, the schema", () => {
  const checkOnce = (sql: Sql) => {
    const logged: Parameters<Logger["log"]>[] = [];
    const check = recentReadiness({ log: (...line) => void logged.push(line) });
    return { logged, readiness: check(sql) };
  };

  it("is ready once the database has recorded the newest migration of this code, or later ones too", async () => {
    for (const recorded of [[NEWEST_MIGRATION], ["0001_links.sql", NEWEST_MIGRATION, "9999_a_later_release.sql"]]) {
      const { logged, readiness } = checkOnce(databaseRecording(recorded));
      expect(await readiness).toEqual({ ready: true });
      expect(logged).toEqual([]);
    }
  });

  it("is not ready while that migration is missing, later ones recorded or not, and logs which one once", async () => {
    for (const recorded of [
      ["0001_links.sql", "0002_assets.sql"],
      ["0001_links.sql", "9999_a_later_release.sql"],
    ]) {
      const { logged, readiness } = checkOnce(databaseRecording(recorded));
      const schemaBehind = { needs: NEWEST_MIGRATION, newest: recorded.at(-1) };
      expect(await readiness).toEqual({ ready: false, schemaBehind });
      expect(logged).toEqual([["warn", "database_schema_behind", schemaBehind]]);
    }
  });

  it("counts an answer without the flag as a failed check, not as a schema behind", async () => {
    const { logged, readiness } = checkOnce({ query: async () => [] } as unknown as Sql);
    expect(await readiness).toMatchObject({ ready: false, error: expect.any(Error) });
    expect(logged).toEqual([
      ["warn", "readiness_check_failed", { error: "Error: the readiness statement answered no migrated flag" }],
    ]);
  });

  it("counts a database without schema_migrations, never migrated, as behind", async () => {
    const missing = new DatabaseError('relation "schema_migrations" does not exist', { code: "42P01" });
    const { logged, readiness } = checkOnce({ query: () => Promise.reject(missing) } as unknown as Sql);
    const schemaBehind = { needs: NEWEST_MIGRATION, newest: null };
    expect(await readiness).toEqual({ ready: false, schemaBehind });
    expect(logged).toEqual([["warn", "database_schema_behind", schemaBehind]]);
  });
});
