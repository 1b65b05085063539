import {
  type BatchedOptions,
  type BatchedRateLimiter,
  type CounterId,
  createBatchedRateLimiter,
  type SharedCounters,
} from "./batched.ts";

// Structural types for the part of Deno KV used here, so tsc needs no Deno declarations.
type DenoKvKey = readonly unknown[];

interface DenoKvAtomic {
  mutate(mutation: { type: "sum"; key: DenoKvKey; value: unknown; expireIn?: number }): DenoKvAtomic;
  commit(): Promise<{ ok: boolean }>;
}

export interface DenoKvCounters {
  getMany(keys: readonly DenoKvKey[]): Promise<{ value: unknown }[]>;
  atomic(): DenoKvAtomic;
}

/** `Deno.KvU64`: the 64-bit unsigned integer a `sum` mutation adds. */
export type DenoKvU64 = new (value: bigint) => { readonly value: bigint };

// Beside the link cache's "cache" root, in the same database.
const ROOT = "rate-limit";
// Deno KV's own limits: mutations per atomic operation, keys per getMany.
const MUTATIONS_PER_COMMIT = 1000;
const KEYS_PER_READ = 10;

const keyOf = ({ policy, window, key }: CounterId): DenoKvKey => [ROOT, policy, window, key];
const countIn = (value: unknown) => Number((value as { value: bigint } | null)?.value ?? 0n);

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Counters in Deno KV, one per key and window: added to with `sum` mutations, which never
 * conflict, a batch in one commit; read back with getMany.
 */
export function denoKvCounters(kv: DenoKvCounters, KvU64: DenoKvU64): SharedCounters {
  return {
    async add(additions, expireIn) {
      for (const batch of chunks(additions, MUTATIONS_PER_COMMIT)) {
        const atomic = kv.atomic();
        for (const { counter, by } of batch) {
          atomic.mutate({ type: "sum", key: keyOf(counter), value: new KvU64(BigInt(by)), expireIn });
        }
        await atomic.commit();
      }
    },
    async read(counters) {
      const reads = chunks(counters, KEYS_PER_READ).map((batch) => kv.getMany(batch.map(keyOf)));
      return (await Promise.all(reads)).flat().map((entry) => countIn(entry.value));
    },
  };
}

/**
 * The rate-limit port over Deno KV: every instance decides from its own tally and the totals it
 * last read, adds its counts to the shared counters in the background and reads them back at most
 * once per `intervalMs` (edge/rate-limit/batched.ts). Counted where the database is: one file
 * self-hosted; on Deno Deploy, the deployment's KV, shared by every region.
 */
export function createDenoKvRateLimiter(
  kv: DenoKvCounters,
  KvU64: DenoKvU64,
  options: BatchedOptions,
): BatchedRateLimiter {
  return createBatchedRateLimiter(denoKvCounters(kv, KvU64), options);
}
