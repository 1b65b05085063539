import type { MiddlewareHandler } from "hono";
import { endTime, setMetric, startTime, timing } from "hono/timing";
import type { AppDeps, AppEnv } from "../deps.ts";
import { aroundEachKvCall, aroundEachSqlCall } from "../ports/around-each-call.ts";

/** The parts of a response's time that `Server-Timing` names, besides `total` and `runtime`. */
export const SERVER_TIMING_PARTS = ["db", "kv", "auth", "limit"] as const;
export type ServerTimingPart = (typeof SERVER_TIMING_PARTS)[number];

const DESCRIPTIONS: Record<ServerTimingPart | "total", string> = {
  db: "database",
  kv: "KV store",
  auth: "token verification",
  limit: "rate limiting",
  total: "total",
};

/**
 * Wall time during which at least one call of a kind was in flight: calls that overlap count
 * once, so no part can exceed the request's total.
 */
class Span {
  ms = 0;
  private inFlight = 0;
  private since = 0;

  async time<T>(work: () => Promise<T>): Promise<T> {
    if (this.inFlight++ === 0) this.since = performance.now();
    try {
      return await work();
    } finally {
      if (--this.inFlight === 0) this.ms += performance.now() - this.since;
    }
  }
}

const untimed = <T>(_part: string, work: () => Promise<T>) => work();

/**
 * Puts each request's ports into its context, and with SERVER_TIMING=on measures them there:
 * time in the database, in the KV store, in token verification and in rate limiting, beside the
 * `total`, as `Server-Timing` on every response, with the runtime's name.
 */
export function serverTiming(deps: AppDeps): MiddlewareHandler<AppEnv> {
  // The total is timed below to the microsecond, as the parts are: Hono's own rounds to a tenth
  // of a millisecond, most of a KV hit, and what the app spends beyond its parts is read as the
  // total less them.
  const measure = timing({ total: false });
  return async (c, next) => {
    // As tracing (core/telemetry/) left them, when it is on. `c.get`, not `c.var`: Hono builds
    // `c.var` anew, an object of every variable, at each read.
    const sql = c.get("sql") ?? deps.sql;
    const kv = c.get("kv") ?? deps.kv;
    const timed = c.get("timed") ?? untimed;
    if (!deps.settings.serverTiming) {
      c.set("sql", sql);
      c.set("kv", kv);
      c.set("timed", timed);
      return next();
    }
    return measure(c, async () => {
      startTime(c, "total", DESCRIPTIONS.total);
      const spans = { db: new Span(), kv: new Span(), auth: new Span(), limit: new Span() };
      c.set(
        "sql",
        aroundEachSqlCall(sql, (call) => spans.db.time(call)),
      );
      c.set(
        "kv",
        aroundEachKvCall(kv, (call) => spans.kv.time(call)),
      );
      c.set("timed", (part, work) => spans[part].time(() => timed(part, work)));
      await next();
      // Every part on every response, 0 when unused: a reader finds the same names everywhere.
      // Three decimals: an in-memory KV read takes microseconds.
      for (const part of SERVER_TIMING_PARTS) setMetric(c, part, spans[part].ms, DESCRIPTIONS[part], 3);
      setMetric(c, "runtime", deps.runtime);
      endTime(c, "total", 3);
    });
  };
}
