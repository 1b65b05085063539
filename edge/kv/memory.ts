import type { KvCache, KvListPage } from "../../core/ports/kv.ts";

interface Entry {
  value: string;
  expiresAt: number;
}

/** An in-memory KV cache with TTLs honoured, for Node runs and tests. */
export function createMemoryKv(now: () => number = Date.now): KvCache & { size(): number } {
  const entries = new Map<string, Entry>();

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  return {
    async get(key) {
      return live(key)?.value ?? null;
    },
    async put(key, value, { ttlSeconds }) {
      entries.set(key, { value, expiresAt: now() + ttlSeconds * 1000 });
    },
    async delete(key) {
      entries.delete(key);
    },
    async list(prefix, { cursor, limit = 1000 } = {}): Promise<KvListPage> {
      const keys = [...entries.keys()]
        .filter((key) => key.startsWith(prefix) && (cursor === undefined || key > cursor) && live(key))
        .sort();
      const page = keys.slice(0, limit);
      const last = page.at(-1);
      return keys.length > limit && last !== undefined ? { keys: page, cursor: last } : { keys: page };
    },
    size() {
      return [...entries.keys()].filter((key) => live(key)).length;
    },
  };
}
