import type { KvCache, KvListPage } from "../../core/ports/kv.ts";

interface Entry {
  value: string;
  expiresAt: number;
}

/**
 * Entries each write looks at for expiry, walking the store round and round. Two per write keep
 * the store under twice its live entries (a round visits n entries in n/2 writes, and at most
 * that many expire meanwhile), without a timer and without a pause to scan everything at once.
 */
export const SWEEP_STEPS_PER_WRITE = 2;

/** An in-memory KV cache with TTLs honoured, for Node runs and tests. */
export function createMemoryKv(now: () => number = Date.now): KvCache & { size(): number; heldEntries(): number } {
  const entries = new Map<string, Entry>();
  // A Map's iterator is live: it skips deleted entries and reaches ones added after it started.
  let sweep = entries.entries();
  const sweepSome = () => {
    for (let step = 0; step < SWEEP_STEPS_PER_WRITE; step++) {
      let next = sweep.next();
      if (next.done) {
        sweep = entries.entries();
        next = sweep.next();
        if (next.done) return;
      }
      const [key, entry] = next.value;
      if (entry.expiresAt <= now()) entries.delete(key);
    }
  };

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
    async getMany(keys) {
      return keys.map((key) => live(key)?.value ?? null);
    },
    async put(key, value, { ttlSeconds }) {
      entries.set(key, { value, expiresAt: now() + ttlSeconds * 1000 });
      sweepSome();
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
    /** Every entry still in memory, expired or not: what the sweep bounds. */
    heldEntries() {
      return entries.size;
    },
  };
}
