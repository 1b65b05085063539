// What one invocation may still spend. Platforms cap the store operations of an invocation
// (Workers: 1,000 KV operations; Fastly Compute: 32 backend requests, each SQL statement one);
// work that runs in the background of an invocation (a sync of the link change feed, the
// housekeeping) counts its calls here, plans its batches to fit, and stops before the limit or
// its time runs out, so the next invocation resumes instead of this one failing midway.
import { aroundEachKvCall, aroundEachSqlCall } from "../ports/around-each-call.ts";
import type { KvCache } from "../ports/kv.ts";
import type { Sql } from "../ports/sql.ts";

/** Per-invocation limits of a platform; an absent one is unlimited. */
export interface InvocationLimits {
  kvOperations?: number;
  sqlStatements?: number;
}

export class BudgetExhaustedError extends Error {
  constructor(what: string) {
    super(`the invocation's ${what} budget is spent`);
    this.name = "BudgetExhaustedError";
  }
}

export interface InvocationBudget {
  kvLeft(): number;
  sqlLeft(): number;
  timeLeft(): number;
  /**
   * A share of the invocation for one task: the same counts, at most `ms` more time and, when
   * given, at most `sqlStatements` of what is left.
   */
  within(ms: number, sqlStatements?: number): InvocationBudget;
  /** `kv`, each call counted. */
  meterKv(kv: KvCache): KvCache;
  /** `sql`, each round trip counted (a transaction is one). */
  meterSql(sql: Sql): Sql;
}

/** `limits` to spend until `deadline` (epoch ms, by `now`). */
export function createInvocationBudget(
  limits: InvocationLimits,
  deadline: number,
  now: () => number = () => Date.now(),
): InvocationBudget {
  let kvLeft = limits.kvOperations ?? Number.POSITIVE_INFINITY;
  let sqlLeft = limits.sqlStatements ?? Number.POSITIVE_INFINITY;

  // Counted before the call, so a call that fails still counts, as it does for the platform.
  function spendKv() {
    if (kvLeft < 1) throw new BudgetExhaustedError("KV operation");
    kvLeft--;
  }
  function spendSql() {
    if (sqlLeft < 1) throw new BudgetExhaustedError("SQL statement");
    sqlLeft--;
  }

  const meterKv = (kv: KvCache): KvCache =>
    aroundEachKvCall(kv, (call) => {
      spendKv();
      return call();
    });

  const until = (end: number, sqlCap = Number.POSITIVE_INFINITY): InvocationBudget => {
    let spentHere = 0; // by this share, against its own cap
    return {
      kvLeft: () => kvLeft,
      sqlLeft: () => Math.min(sqlLeft, sqlCap - spentHere),
      timeLeft: () => end - now(),
      within: (ms, statements = Number.POSITIVE_INFINITY) =>
        until(Math.min(end, now() + ms), Math.min(statements, sqlCap - spentHere)),
      meterKv,
      meterSql(sql) {
        return aroundEachSqlCall(sql, (call) => {
          // By this share, against its own cap; then against the invocation's.
          if (spentHere >= sqlCap) throw new BudgetExhaustedError("SQL statement");
          spentHere++;
          spendSql();
          return call();
        });
      },
    };
  };
  return until(deadline);
}
