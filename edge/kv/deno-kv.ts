import type { KvCache, KvListPage } from "../../core/ports/kv.ts";

// Structural types for the part of Deno KV used here, so tsc needs no Deno declarations.
type DenoKvKey = readonly unknown[];

interface DenoKvEntry {
  key: DenoKvKey;
  value: unknown;
}

export interface DenoKv {
  get(key: DenoKvKey): Promise<DenoKvEntry>;
  set(key: DenoKvKey, value: unknown, options?: { expireIn?: number }): Promise<unknown>;
  delete(key: DenoKvKey): Promise<void>;
  list(selector: { prefix: DenoKvKey; start?: DenoKvKey }): AsyncIterable<DenoKvEntry>;
}

/** Stored with its own deadline: Deno KV deletes expired keys eventually, not on time. */
interface Stored {
  value: string;
  expiresAt: number;
}

// Every string key of the port lives under one root part, so the cache can share a database.
const ROOT = "cache";
const denoKey = (key: string): DenoKvKey => [ROOT, key];

const isStored = (value: unknown): value is Stored =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Stored).value === "string" &&
  typeof (value as Stored).expiresAt === "number";

/** The KV cache port over Deno KV (`Deno.openKv()`); string prefixes are listed as a key range. */
export function createDenoKv(kv: DenoKv, now: () => number = Date.now): KvCache {
  return {
    async get(key) {
      const { value } = await kv.get(denoKey(key));
      return isStored(value) && value.expiresAt > now() ? value.value : null;
    },
    async put(key, value, { ttlSeconds }) {
      const stored: Stored = { value, expiresAt: now() + ttlSeconds * 1000 };
      await kv.set(denoKey(key), stored, { expireIn: ttlSeconds * 1000 });
    },
    delete: (key) => kv.delete(denoKey(key)),
    async list(prefix, { cursor, limit = 1000 } = {}): Promise<KvListPage> {
      // Keys sort by their UTF-8 bytes, so those starting with `prefix` are one contiguous run
      // from `prefix` on. The cursor is the last key returned, as in the memory cache.
      const keys: string[] = [];
      // No store-side limit: skipped (expired, cursor) entries must not end the page early.
      for await (const entry of kv.list({ prefix: [ROOT], start: denoKey(cursor ?? prefix) })) {
        const key = entry.key[1];
        if (typeof key !== "string" || !key.startsWith(prefix)) break;
        if (key === cursor || !isStored(entry.value) || entry.value.expiresAt <= now()) continue;
        if (keys.length === limit) return { keys, cursor: keys[keys.length - 1]! };
        keys.push(key);
      }
      return { keys };
    },
  };
}
