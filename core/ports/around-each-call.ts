// A port with something run around each of its calls: time it (Server-Timing), count it against
// an invocation's budget, count it in a test or a bench. One wrapper per port for all of them, so
// a method added to a port is forwarded in one place.
import type { KvCache, KvMethod } from "./kv.ts";
import type { Row, Sql } from "./sql.ts";

/**
 * Runs `call`, the port's method `method` with its arguments, and answers what it answers. A
 * throw before the call is a rejection, as a failed call is.
 */
export type AroundCall<Method extends string> = <T>(call: () => Promise<T>, method: Method) => Promise<T>;

export function aroundEachSqlCall(sql: Sql, around: AroundCall<keyof Sql>): Sql {
  return {
    query: async <T extends Row = Row>(text: string, params?: readonly unknown[]) =>
      around(() => sql.query<T>(text, params), "query"),
    transaction: async (statements, options) => around(() => sql.transaction(statements, options), "transaction"),
  };
}

export function aroundEachKvCall(kv: KvCache, around: AroundCall<KvMethod>): KvCache {
  return {
    get: async (key) => around(() => kv.get(key), "get"),
    put: async (key, value, options) => around(() => kv.put(key, value, options), "put"),
    delete: async (key) => around(() => kv.delete(key), "delete"),
    list: async (prefix, options) => around(() => kv.list(prefix, options), "list"),
    // Forwarded only where the store has it: without it, callers read one key at a time.
    ...(kv.getMany && { getMany: async (keys: readonly string[]) => around(() => kv.getMany!(keys), "getMany") }),
    // Not a call: what the store's reads are worth, which a wrapper does not change.
    ...(kv.readLagMs !== undefined && { readLagMs: kv.readLagMs }),
  };
}
