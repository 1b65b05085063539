// A KV store that misbehaves on demand, in front of a working one: down (every call rejects),
// hanging (no call ever settles), throwing synchronously, or handing back unreadable values.

import type { KvCache } from "../../core/ports/kv.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";

export type KvFault = "none" | "down" | "hang" | "throw" | "garbage";

interface FaultyKv extends KvCache {
  setFault(fault: KvFault): void;
  /** The store behind the faults, for checking what really got written. */
  inner: KvCache;
  /** Calls made while a fault was set. */
  failedCalls(): number;
}

export function createFaultyKv(inner: KvCache = createMemoryKv()): FaultyKv {
  let fault: KvFault = "none";
  let failedCalls = 0;

  function guarded<A extends unknown[], R>(call: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return (...args) => {
      if (fault === "none" || fault === "garbage") return call(...args);
      failedCalls++;
      if (fault === "throw") throw new Error("kv binding exploded");
      if (fault === "hang") return new Promise<R>(() => {});
      return Promise.reject(new Error("kv unavailable: 503 from the store"));
    };
  }

  return {
    inner,
    setFault: (next) => void (fault = next),
    failedCalls: () => failedCalls,
    get: guarded(async (key) => {
      const value = await inner.get(key);
      return fault === "garbage" && value !== null ? `${value.slice(0, 7)}\u0000not json` : value;
    }),
    put: guarded((key, value, options) => inner.put(key, value, options)),
    delete: guarded((key) => inner.delete(key)),
    list: guarded((prefix, options) => inner.list(prefix, options)),
  };
}
