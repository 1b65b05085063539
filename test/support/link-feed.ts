// Stand-ins for a sync's two stores: a KV store whose calls are counted as a platform counts an
// invocation's operations, and databases whose link change feed is empty or never ends.
import { aroundEachKvCall } from "../../core/ports/around-each-call.ts";
import type { KvCache } from "../../core/ports/kv.ts";
import type { Sql } from "../../core/ports/sql.ts";

/** `kv` with its calls counted (a bulk read is one); without `bulk`, one key per read, as Deno KV and Fastly's. */
export function countingKv(kv: KvCache, { bulk = false } = {}) {
  let calls = 0;
  const puts: string[] = [];
  const source: KvCache = bulk ? kv : { ...kv, getMany: undefined };
  const counted = aroundEachKvCall(source, (call) => {
    calls++;
    return call();
  });
  return {
    kv: { ...counted, put: (key, value, options) => (puts.push(key), counted.put(key, value, options)) } as KvCache,
    calls: () => calls,
    puts: (key: string) => puts.filter((put) => put === key).length,
  };
}

const isFeedRead = (text: string) => text.includes("pg_current_snapshot");

/** A database whose feed is always empty; counts the feed reads. */
export function emptyFeedSql() {
  let reads = 0;
  const sql = {
    query: async (text: string) => {
      if (!isFeedRead(text)) return [{ pruned: 0, expired: 0 }];
      reads++;
      return [{ horizon: "5", txid: null }];
    },
    transaction: async () => [],
  } as unknown as Sql;
  return { sql, reads: () => reads };
}

/** A database whose feed never ends (every page full); records each statement as feed, prune or other. */
export function endlessFeedSql() {
  const statements: string[] = [];
  let next = 1;
  const sql = {
    query: async (text: string, params: unknown[] = []) => {
      statements.push(isFeedRead(text) ? "feed" : text.includes("link_changes") ? "prune" : "other");
      if (!isFeedRead(text)) return [{ pruned: 0, expired: 0 }];
      return Array.from({ length: Number(params[2]) }, () => {
        const n = String(next++);
        return { horizon: "9999999", txid: n, id: n, tenant_id: "t", provider: "github", external_account_id: n };
      });
    },
    transaction: async () => [],
  } as unknown as Sql;
  return { sql, statements, last: () => next - 1 };
}

/**
 * A database whose feed grows by `perSecond` changes a second of `now` (the clock the test moves),
 * each change one txid; counts its statements.
 */
export function growingFeedSql(perSecond: number, now: () => number = Date.now) {
  const start = now();
  let statements = 0;
  const written = () => Math.floor(((now() - start) / 1000) * perSecond);
  const sql = {
    query: async (text: string, params: unknown[] = []) => {
      statements++;
      if (!isFeedRead(text)) return [{ pruned: 0, expired: 0 }];
      // The cursor "t:i" is past change t, or, at a horizon ("t:0"), before it.
      const [txid, id, limit, horizon] = [...params.slice(0, 3).map(Number), written() + 1] as number[];
      const from = id === 0 ? Math.max(0, txid! - 1) : txid!;
      const last = Math.min(horizon! - 1, from + limit!);
      if (last <= from) return [{ horizon: String(horizon), txid: null }];
      return Array.from({ length: last - from }, (_, i) => {
        const n = String(from + i + 1);
        return { horizon: String(horizon), txid: n, id: n, tenant_id: "t", provider: "github", external_account_id: n };
      });
    },
    transaction: async () => [],
  } as unknown as Sql;
  return { sql, statements: () => statements };
}
