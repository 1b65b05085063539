import type { KvCache, KvListPage } from "../../core/ports/kv.ts";

/** The part of a Workers KV namespace binding the cache uses (structural, so no global types). */
export interface WorkersKvNamespace {
  get(key: string): Promise<string | null>;
  /** The bulk read: up to 100 keys, one of the invocation's 1,000 operations. */
  get(keys: string[]): Promise<Map<string, string | null>>;
  put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void>;
  delete(key: string): Promise<void>;
  list(options?: { prefix?: string; cursor?: string; limit?: number }): Promise<{
    keys: { name: string }[];
    list_complete: boolean;
    cursor?: string;
  }>;
}

/** Workers KV is at most 1000 keys a page. */
const MAX_LIST_LIMIT = 1000;

/**
 * A location keeps what it read, an absence included, for a get's cacheTtl (60 s by default, the
 * one used here), and sees others' writes only then: changes take up to 60 s to show everywhere.
 */
export const WORKERS_KV_READ_LAG_MS = 60_000;

/** The KV cache port over a Workers KV namespace (eventually consistent, expiry enforced by KV). */
export function createWorkersKv(namespace: WorkersKvNamespace): KvCache {
  return {
    readLagMs: WORKERS_KV_READ_LAG_MS,
    get: (key) => namespace.get(key),
    async getMany(keys) {
      if (keys.length === 0) return [];
      const values = await namespace.get([...keys]);
      return keys.map((key) => values.get(key) ?? null);
    },
    put: (key, value, { ttlSeconds }) => namespace.put(key, value, { expirationTtl: ttlSeconds }),
    delete: (key) => namespace.delete(key),
    async list(prefix, { cursor, limit = MAX_LIST_LIMIT } = {}): Promise<KvListPage> {
      const page = await namespace.list({
        prefix,
        limit: Math.min(limit, MAX_LIST_LIMIT),
        ...(cursor ? { cursor } : {}),
      });
      const keys = page.keys.map((key) => key.name);
      return !page.list_complete && page.cursor ? { keys, cursor: page.cursor } : { keys };
    },
  };
}
