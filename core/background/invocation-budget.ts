// What one invocation may still spend. Platforms cap the store operations of an invocation
// (Workers: 1,000 KV operations; Fastly Compute: 32 backend requests, each SQL statement one);
// work that runs in the background of an invocation (a drain of the link change feed, the
// housekeeping) counts its calls here, plans its batches to fit, and stops before the limit or
// its time runs out, so the next invocation resumes instead of this one failing midway.
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

  const meterKv = (kv: KvCache): KvCache => ({
    async get(key) {
      spendKv();
      return kv.get(key);
    },
    // One operation, as Workers count a bulk read (the only platform here that limits KV calls).
    ...(kv.getMany && {
      async getMany(keys: readonly string[]) {
        spendKv();
        return kv.getMany!(keys);
      },
    }),
    async put(key, value, options) {
      spendKv();
      return kv.put(key, value, options);
    },
    async delete(key) {
      spendKv();
      return kv.delete(key);
    },
    async list(prefix, options) {
      spendKv();
      return kv.list(prefix, options);
    },
  });

  const meterSql = (sql: Sql): Sql => ({
    async query(text, params) {
      spendSql();
      return sql.query(text, params);
    },
    async transaction(statements, options) {
      spendSql();
      return sql.transaction(statements, options);
    },
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
        const metered = meterSql(sql);
        const spendHere = () => {
          if (spentHere >= sqlCap) throw new BudgetExhaustedError("SQL statement");
          spentHere++;
        };
        return {
          async query(text, params) {
            spendHere();
            return metered.query(text, params);
          },
          async transaction(statements, options) {
            spendHere();
            return metered.transaction(statements, options);
          },
        };
      },
    };
  };
  return until(deadline);
}
