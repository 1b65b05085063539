// Server-Timing (SERVER_TIMING=on): the same metric names on every runtime and every answer,
// each part within the total. Off by default: the unavailable suite's server leaves it off.
import { describe, expect, it } from "vitest";
import type { RuntimeName } from "../../../dev/launchers/index.ts";
import { parseServerTiming } from "../../../dev/support/server-timing.ts";
import { type Answer, type Call, freshTenant } from "../client.ts";

const PARTS = ["db", "kv", "auth", "limit"];

/** name → duration in ms, or the description of a metric without one (`runtime`). */
function metrics(answer: Answer): Record<string, number | string> {
  const header = answer.headers.get("server-timing");
  expect(header, "Server-Timing").not.toBeNull();
  return Object.fromEntries(parseServerTiming(header!));
}

function expectTimed(answer: Answer, runtime: RuntimeName) {
  const timing = metrics(answer);
  expect(Object.keys(timing).sort()).toEqual(["auth", "db", "kv", "limit", "runtime", "total"]);
  expect(timing.runtime).toBe(runtime);
  for (const part of PARTS) {
    expect(timing[part]).toBeGreaterThanOrEqual(0);
    expect(timing[part]).toBeLessThanOrEqual((timing.total as number) + 0.1);
  }
  return timing as Record<string, number>;
}

export function serverTimingCases(call: Call, runtime: RuntimeName) {
  describe("Server-Timing (SERVER_TIMING=on)", () => {
    it("names the database, KV, token verification, total and runtime on every answer", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      expectTimed(await call("GET", "/healthz", { as: null }), runtime);
      expectTimed(await call("GET", "/v1/me/links", { as: null }), runtime); // 401
      const linked = await call("PUT", "/v1/links/github/timed-1", { as });
      expect(linked.status).toBe(201);
      // Workers advance their clock only across I/O: a database round trip always shows.
      expect(expectTimed(linked, runtime).db).toBeGreaterThan(0);
      expectTimed(await call("GET", "/v1/links/github/timed-1", { as }), runtime);
    });

    it("times a sync as the background run it is: its statements and KV calls in the total, not in db or kv", async () => {
      const admin = { sub: "root", tid: freshTenant(), role: "admin" } as const;
      const synced = await call("POST", "/v1/admin/links/sync", { as: admin });
      expect(synced.status).toBe(200);
      const timing = expectTimed(synced, runtime);
      expect([timing.db, timing.kv]).toEqual([0, 0]);
      expect(timing.total).toBeGreaterThan(0);
    });
  });
}

export function serverTimingOffCases(call: Call) {
  it("sends no Server-Timing unless SERVER_TIMING=on", async () => {
    expect((await call("GET", "/healthz", { as: null })).headers.get("server-timing")).toBeNull();
  });
}
