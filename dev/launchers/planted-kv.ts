// Entries a runtime's KV store holds before its first request, as if written by something else
// bound to the same store (another Worker or service, a leaked API token). Tests plant them to
// show the service never takes such an entry for its own decision.
import type { KvCache } from "../../core/ports/kv.ts";

/** Key → value, written through the runtime's own KV adapter so each is stored as it would be. */
export type KvEntries = Record<string, string>;

export const PLANTED_TTL_SECONDS = 86_400;

export async function plantKvEntries(kv: KvCache, entries: KvEntries = {}): Promise<void> {
  for (const [key, value] of Object.entries(entries)) await kv.put(key, value, { ttlSeconds: PLANTED_TTL_SECONDS });
}
