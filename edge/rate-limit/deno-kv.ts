import {
  type BatchedOptions,
  type BatchedRateLimiter,
  type CounterId,
  createBatchedRateLimiter,
  PartialAdd,
  type SharedCounters,
} from "./batched.ts";

// Structural types for the part of Deno KV used here, so tsc needs no Deno declarations.
type DenoKvKey = readonly unknown[];

interface DenoKvAtomic {
  mutate(mutation: { type: "sum"; key: DenoKvKey; value: unknown } | { type: "delete"; key: DenoKvKey }): DenoKvAtomic;
  commit(): Promise<{ ok: boolean }>;
}

export interface DenoKvCounters {
  getMany(keys: readonly DenoKvKey[]): Promise<{ value: unknown }[]>;
  list(selector: { prefix: DenoKvKey; end: DenoKvKey }, options: { limit: number }): AsyncIterable<{ key: DenoKvKey }>;
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

/** Commits the items' mutations, MUTATIONS_PER_COMMIT at a time; a failure names how many went in. */
async function commitEach<T>(kv: DenoKvCounters, items: readonly T[], mutate: (atomic: DenoKvAtomic, item: T) => void) {
  let committed = 0;
  for (const batch of chunks(items, MUTATIONS_PER_COMMIT)) {
    const atomic = kv.atomic();
    for (const item of batch) mutate(atomic, item);
    try {
      await atomic.commit();
    } catch (error) {
      throw committed > 0 ? new PartialAdd(committed, { cause: error }) : error;
    }
    committed += batch.length;
  }
}

/**
 * Deletes up to `most` of the policy's counters of windows before `window - 1`: the previous
 * window's stay, for an instance whose clock is late. Deno KV ignores `expireIn` on a `sum`
 * mutation (and a sum clears the expiry a `set` gave), so without this every key's counter of
 * every window stayed. True once none is left.
 */
async function deleteOldWindows(kv: DenoKvCounters, policy: string, window: number, most: number): Promise<boolean> {
  const old: DenoKvKey[] = [];
  const selector = { prefix: [ROOT, policy], end: [ROOT, policy, window - 1] };
  for await (const { key } of kv.list(selector, { limit: most })) old.push(key);
  await commitEach(kv, old, (atomic, key) => atomic.mutate({ type: "delete", key }));
  return old.length < most;
}

/**
 * Old counters a sync may delete for a policy it added `added` counters to: as many (so the old
 * windows are emptied as fast as new ones fill, whatever the number of distinct keys a second),
 * and at least one commit's worth (so a backlog left by a failure or a busier minute goes soon).
 */
const deletionsFor = (added: number) => Math.max(MUTATIONS_PER_COMMIT, added);

/**
 * Counters in Deno KV, one per key and window: added to with `sum` mutations, which never
 * conflict, a batch in one commit; read back with getMany. Each instance deletes the old windows'
 * counters in the first syncs of each window it adds to, each sync as many as it adds (the expiry
 * the SharedCounters port asks for).
 */
export function denoKvCounters(kv: DenoKvCounters, KvU64: DenoKvU64): SharedCounters {
  const sweptWindow = new Map<string, number>();
  return {
    async add(additions) {
      await commitEach(kv, additions, (atomic, { counter, by }) =>
        atomic.mutate({ type: "sum", key: keyOf(counter), value: new KvU64(BigInt(by)) }),
      );
      const latest = new Map<string, { window: number; added: number }>();
      for (const { counter } of additions) {
        const { added = 0 } = latest.get(counter.policy) ?? {};
        latest.set(counter.policy, { window: counter.window, added: added + 1 });
      }
      for (const [policy, { window, added }] of latest) {
        if ((sweptWindow.get(policy) ?? Number.NEGATIVE_INFINITY) >= window) continue;
        // Never thrown: the counts are in, and a failed add would be added again. What is left
        // (a backlog, a failure) is deleted at the next add.
        await deleteOldWindows(kv, policy, window, deletionsFor(added)).then(
          (done) => done && sweptWindow.set(policy, window),
          () => {},
        );
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
