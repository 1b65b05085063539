import type { RateLimiter } from "../../core/ports/rate-limit.ts";

// Structural types for the part of Deno KV used here, so tsc needs no Deno declarations.
type DenoKvKey = readonly unknown[];

interface DenoKvAtomic {
  mutate(mutation: { type: "sum"; key: DenoKvKey; value: unknown; expireIn?: number }): DenoKvAtomic;
  commit(): Promise<{ ok: boolean }>;
}

export interface DenoKvCounters {
  get(key: DenoKvKey): Promise<{ value: unknown }>;
  atomic(): DenoKvAtomic;
}

/** `Deno.KvU64`: the 64-bit unsigned integer a `sum` mutation adds. */
export type DenoKvU64 = new (value: bigint) => { readonly value: bigint };

// Beside the link cache's "cache" root, in the same database.
const ROOT = "rate-limit";

/**
 * The rate-limit port over Deno KV: a counter per key and clock-aligned window, added to with an
 * atomic `sum` (which never conflicts, however many requests count at once) and then read. The
 * counter expires with its window. Counted where the database is: one process's file
 * self-hosted; on Deno Deploy, the deployment's KV, which every region shares.
 */
export function createDenoKvRateLimiter(
  kv: DenoKvCounters,
  KvU64: DenoKvU64,
  now: () => number = Date.now,
): RateLimiter {
  const one = new KvU64(1n);
  return {
    async count(policy, key) {
      const windowMs = policy.windowSeconds * 1000;
      const at = now();
      const index = Math.floor(at / windowMs);
      const counter = [ROOT, policy.name, index, key];
      // Kept a window past its own, so a late reader of the window still finds it.
      await kv
        .atomic()
        .mutate({ type: "sum", key: counter, value: one, expireIn: 2 * windowMs })
        .commit();
      const { value } = await kv.get(counter);
      const used = Number((value as { value: bigint } | null)?.value ?? 1n);
      const resetSeconds = Math.ceil(((index + 1) * windowMs - at) / 1000);
      return { allowed: used <= policy.limit, remaining: Math.max(0, policy.limit - used), resetSeconds };
    },
  };
}
