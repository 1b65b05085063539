import type { KvCache, KvListPage } from "../../core/ports/kv.ts";
import { decodeKvKey, encodeKvKey, fastlyKey } from "./fastly-keys.ts";

/** What the adapter uses of `KVStore` from `fastly:kv-store` (a fake stands in for unit tests). */
export interface FastlyKvStore {
  get(key: string): Promise<{ text(): Promise<string> } | null>;
  put(key: string, value: string, options: { ttl?: number }): Promise<unknown>;
  delete(key: string): Promise<unknown>;
  list(options: {
    prefix?: string;
    cursor?: string;
    limit?: number;
  }): Promise<{ list: string[]; cursor?: string | undefined }>;
}

// js-compute rejects a delete of a key that does not exist (documented; the message is its
// runtime's "KVStore delete: " and the store's "Not found."), where the port's delete of an
// absent key is no error. Viceroy resolves it, so only Fastly shows the difference.
const DELETE_NOT_FOUND = /^KVStore delete: Not found\.?$/;

/**
 * Fastly's KV Store is eventually consistent across POPs: a read may miss a change made elsewhere
 * for up to a few hundred ms (rounded up).
 */
export const FASTLY_KV_READ_LAG_MS = 1_000;

/**
 * The KvCache port over a Fastly KV Store. Values are strings, so every put sends a buffered body
 * (a streamed one would make the store ignore `mode` and `gen`).
 */
export function createFastlyKv(store: FastlyKvStore): KvCache {
  return {
    readLagMs: FASTLY_KV_READ_LAG_MS,
    async get(key) {
      const entry = await store.get(fastlyKey(key));
      return entry ? entry.text() : null;
    },
    async put(key, value, { ttlSeconds }) {
      await store.put(fastlyKey(key), value, { ttl: ttlSeconds });
    },
    async delete(key) {
      await store.delete(fastlyKey(key)).catch((error: unknown) => {
        if (!(error instanceof Error && DELETE_NOT_FOUND.test(error.message))) throw error;
      });
    },
    async list(prefix, { cursor, limit } = {}): Promise<KvListPage> {
      const page = await store.list({
        ...(prefix === "" ? {} : { prefix: encodeKvKey(prefix) }),
        ...(cursor === undefined ? {} : { cursor }),
        ...(limit === undefined ? {} : { limit }),
      });
      const keys = page.list.map(decodeKvKey).filter((key) => key !== undefined);
      return page.cursor ? { keys, cursor: page.cursor } : { keys };
    },
  };
}
