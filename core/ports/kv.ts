// The KV cache port: a best-effort, eventually consistent key-value store (Workers KV, Fastly KV
// Store, Deno KV, or memory). Never the judge of anything: callers treat every failure as a miss.

export interface KvListPage {
  keys: string[];
  /** Present when there are more keys to list. */
  cursor?: string;
}

export interface KvCache {
  get(key: string): Promise<string | null>;
  /**
   * The values of up to KV_GET_MANY_MAX keys, in their order, in one operation: where a store
   * reads many keys at once (Workers KV's bulk read, which counts as one of an invocation's
   * 1,000 operations). Absent elsewhere; `getEach` then reads them one by one.
   */
  getMany?(keys: readonly string[]): Promise<(string | null)[]>;
  /** `ttlSeconds` is at least 60, the smallest lifetime every store accepts. */
  put(key: string, value: string, options: { ttlSeconds: number }): Promise<void>;
  delete(key: string): Promise<void>;
  list(prefix: string, options?: { cursor?: string; limit?: number }): Promise<KvListPage>;
  /**
   * How long after a write or delete made elsewhere (at another location of the store) a read here
   * may still answer what was there before, an absence included: Workers KV's locations keep what
   * they read for 60 s, the Fastly KV Store's POPs lag a few hundred ms. Absent: a read sees every
   * write and delete that ended before it (memory, Deno KV's strong reads).
   */
  readonly readLagMs?: number;
}

/** The store's calls (every member but `readLagMs`). */
export type KvMethod = Exclude<keyof KvCache, "readLagMs">;

export const MIN_KV_TTL_SECONDS = 60;

/** How long a KV call may take: the store is a cache, so a slow answer counts as none. */
export const DEFAULT_KV_TIMEOUT_MS = 1_000;

/** The most keys one `getMany` call may name (Workers KV reads at most 100 at once). */
export const KV_GET_MANY_MAX = 100;
