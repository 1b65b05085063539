// Workers KV's consistency, modelled for tests: one central store, and locations that each keep
// what they read there, a value or an absence, for `cacheTtlMs` (a get's cacheTtl: 60 s by
// default). A write or delete goes to the central store and is seen at once where it was made;
// every other location goes on answering what it last read until that expires. So a sync running
// at one location (the cron's) can read "absent" for a key another location filled meanwhile.
import type { KvCache } from "../../core/ports/kv.ts";

interface Cached {
  value: string | null;
  until: number;
}

export function locatedKv(central: KvCache, { cacheTtlMs = 60_000, now = () => Date.now() } = {}) {
  const locations = new Map<string, Map<string, Cached>>();
  return {
    /** The store as seen from `location`; its reads lag others' writes by up to `cacheTtlMs`. */
    at(location: string): KvCache {
      const cache = locations.get(location) ?? new Map<string, Cached>();
      locations.set(location, cache);
      const remember = (key: string, value: string | null) => cache.set(key, { value, until: now() + cacheTtlMs });
      const get = async (key: string) => {
        const cached = cache.get(key);
        if (cached && cached.until > now()) return cached.value;
        const value = await central.get(key);
        remember(key, value);
        return value;
      };
      return {
        readLagMs: cacheTtlMs,
        get,
        getMany: (keys) => Promise.all(keys.map(get)),
        async put(key, value, options) {
          await central.put(key, value, options);
          remember(key, value);
        },
        async delete(key) {
          await central.delete(key);
          remember(key, null);
        },
        list: (prefix, options) => central.list(prefix, options),
      };
    },
  };
}
