import type { RateLimiter } from "../../core/ports/rate-limit.ts";

// Structural types for the part of Deno KV used here, so tsc needs no Deno declarations.
type DenoKvKey = readonly unknown[];

interface DenoKvAtomic {
  check(entry: { key: DenoKvKey; versionstamp: string | null }): DenoKvAtomic;
  set(key: DenoKvKey, value: unknown, options?: { expireIn?: number }): DenoKvAtomic;
  mutate(mutation: { type: "sum"; key: DenoKvKey; value: unknown; expireIn?: number }): DenoKvAtomic;
  commit(): Promise<{ ok: boolean }>;
}

export interface DenoKvCounters {
  get(key: DenoKvKey): Promise<{ value: unknown; versionstamp: string | null }>;
  atomic(): DenoKvAtomic;
}

/** `Deno.KvU64`: the 64-bit unsigned integer a `sum` mutation adds. */
export type DenoKvU64 = new (value: bigint) => { readonly value: bigint };

// Beside the link cache's "cache" root, in the same database.
const ROOT = "rate-limit";
/** Compare-and-set attempts before a request is counted with a `sum`, which never conflicts. */
const ATTEMPTS = 5;

const countIn = (value: unknown) => Number((value as { value: bigint } | null)?.value ?? 0n);

/**
 * The rate-limit port over Deno KV: a counter per key and clock-aligned window, incremented by
 * compare-and-set, so each request knows its own place in the window and requests arriving at once
 * are told apart. Under heavy contention a request is counted with an atomic `sum` and reads the
 * total back, which may count others' requests as its own (refusing early, never late). The
 * counter expires after its window. Counted where the database is: one file self-hosted; on
 * Deno Deploy, the deployment's KV, shared by every region.
 */
export function createDenoKvRateLimiter(
  kv: DenoKvCounters,
  KvU64: DenoKvU64,
  now: () => number = Date.now,
): RateLimiter {
  return {
    async count(policy, key) {
      const windowMs = policy.windowSeconds * 1000;
      const at = now();
      const index = Math.floor(at / windowMs);
      const counter = [ROOT, policy.name, index, key];
      // Kept a window past its own, so a late reader of the window still finds it.
      const expireIn = 2 * windowMs;
      const used = await increment(kv, KvU64, counter, expireIn);
      const resetSeconds = Math.ceil(((index + 1) * windowMs - at) / 1000);
      return { allowed: used <= policy.limit, remaining: Math.max(0, policy.limit - used), resetSeconds };
    },
  };
}

/** The counter's value once this request is counted. */
async function increment(kv: DenoKvCounters, KvU64: DenoKvU64, counter: DenoKvKey, expireIn: number) {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const entry = await kv.get(counter);
    const used = countIn(entry.value) + 1;
    const { ok } = await kv
      .atomic()
      .check({ key: counter, versionstamp: entry.versionstamp })
      .set(counter, new KvU64(BigInt(used)), { expireIn })
      .commit();
    if (ok) return used;
  }
  await kv
    .atomic()
    .mutate({ type: "sum", key: counter, value: new KvU64(1n), expireIn })
    .commit();
  return countIn((await kv.get(counter)).value);
}
