import { describe, expect, it } from "vitest";
import { parseServerTiming } from "../../dev/support/server-timing.ts";
import { bearer, TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { createApp } from "../app.ts";
import { silentLogger } from "../log.ts";
import type { RateLimiter } from "../ports/rate-limit.ts";
import { DatabaseUnavailableError, type Sql } from "../ports/sql.ts";
import { parseSettings } from "../settings/settings.ts";

const DB_DELAY_MS = 40;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A database that answers no rows after DB_DELAY_MS, or refuses. */
const slowSql = (fails = false): Sql => ({
  query: async () => {
    await pause(DB_DELAY_MS);
    if (fails) throw new DatabaseUnavailableError("connection refused");
    return [];
  },
  transaction: async () => [],
});

const LIMIT_DELAY_MS = 15;

/** A rate limiter that lets everything through after LIMIT_DELAY_MS per count. */
const slowLimiter: RateLimiter = {
  count: async () => {
    await pause(LIMIT_DELAY_MS);
    return { allowed: true, remaining: 1, resetSeconds: 60 };
  },
};

function appWith(serverTiming: string | undefined, sql = slowSql()) {
  return createApp({
    sql,
    kv: createMemoryKv(),
    rateLimiter: slowLimiter,
    settings: parseSettings({ AUTH_SECRET: TEST_AUTH_SECRET, SERVER_TIMING: serverTiming }),
    runtime: "node",
    logger: silentLogger,
  });
}

/** name → duration (or description, for a metric without one). */
function metrics(response: Response): Record<string, number | string> {
  const header = response.headers.get("server-timing");
  if (header === null) throw new Error("no Server-Timing header");
  return Object.fromEntries(parseServerTiming(header));
}

describe("Server-Timing", () => {
  it("is absent unless SERVER_TIMING=on", async () => {
    for (const value of [undefined, "", "off"]) {
      const response = await appWith(value).request("/healthz");
      expect(response.status).toBe(200);
      expect(response.headers.has("server-timing")).toBe(false);
    }
  });

  it("refuses any other value by name", () => {
    expect(() => appWith("yes")).toThrow(/SERVER_TIMING/);
  });

  it("names every part on every response, 0 when unused, with the runtime", async () => {
    const timing = metrics(await appWith("on").request("/healthz"));
    expect(Object.keys(timing).sort()).toEqual(["auth", "db", "kv", "limit", "runtime", "total"]);
    expect(timing).toMatchObject({ db: 0, kv: 0, auth: 0, limit: 0, runtime: "node" });
  });

  it("measures the database, token verification, the KV store and rate limiting inside the total", async () => {
    const app = appWith("on");
    const response = await app.request("/v1/links/github/missing", { headers: await bearer() });
    expect(response.status).toBe(404);
    const { total, db, kv, auth, limit } = metrics(response) as Record<string, number>;
    expect(db).toBeGreaterThanOrEqual(DB_DELAY_MS - 1);
    expect(auth).toBeGreaterThan(0);
    expect(kv).toBeGreaterThan(0);
    // Two counts, the caller's and the tenant's.
    expect(limit).toBeGreaterThanOrEqual(2 * LIMIT_DELAY_MS - 1);
    // Each to the microsecond, so the total less its parts is what the app spent beyond them.
    expect(total).toBeGreaterThanOrEqual(db! + kv! + auth! + limit! - 0.003);
    expect(response.headers.get("server-timing")).toMatch(/(^|,)total;dur=\d+\.\d{3};/);
  });

  it("is on refusals and errors too", async () => {
    const refused = await appWith("on").request("/v1/me/links");
    expect(refused.status).toBe(401);
    expect(metrics(refused)).toMatchObject({ db: 0, runtime: "node" });
    const down = await appWith("on", slowSql(true)).request("/readyz");
    expect(down.status).toBe(503);
    expect(metrics(down).db).toBeGreaterThanOrEqual(DB_DELAY_MS - 1);
  });
});
