// `KVStore` of `fastly:kv-store` as js-compute 3.46 declares it (types/kv-store.d.ts), in memory,
// with Fastly's documented key rules and TTLs, for the KV adapter's unit tests. A delete of a key
// that does not exist rejects, as js-compute documents it (docs/kv-store/KVStore/prototype/delete:
// a TypeError, "KVStore delete: Not found." from its runtime/fastly/builtins/kv-store.cpp); Viceroy
// resolves it instead. Through the
// service, the adapter runs on Viceroy's KV store (the conformance suite on fastly).
import type { FastlyKvStore } from "../../edge/kv/fastly-kv.ts";

const MAX_KEY_BYTES = 1024;
/** What js-compute rejects a delete of an absent key with (its KVStore delete error and the store's "not found"). */
export const KV_DELETE_NOT_FOUND = "KVStore delete: Not found.";

/** Why Fastly refuses a key, or undefined when it accepts it. */
export function kvKeyProblem(key: string): string | undefined {
  const bytes = new TextEncoder().encode(key).length;
  if (bytes === 0) return "a key cannot be empty";
  if (bytes > MAX_KEY_BYTES) return `a key is at most ${MAX_KEY_BYTES} bytes`;
  if (key.startsWith(".well-known/acme-challenge")) return "a key cannot start with .well-known/acme-challenge";
  // Viceroy's rule (its src/object_store.rs, is_valid_key): "./" anywhere, not only as a segment.
  if (key === "." || key === ".." || key.includes("./") || key.endsWith("/.")) {
    return 'a key cannot be "." or "..", contain "./" or end with "/."';
  }
  const forbidden = /[\r\n#;?^|]/.exec(key);
  if (forbidden) return `a key cannot contain ${JSON.stringify(forbidden[0])}`;
  if ([...key].length === 1 && /^[\u0000-\u0020\ufffe\uffff]$/.test(key))
    return "a key cannot be a single control character";
  return undefined;
}

/** A store refusing bad keys with a TypeError, as js-compute does; `puts` records each put's key and TTL. */
export function fakeFastlyKvStore(now: () => number = Date.now) {
  const values = new Map<string, { text: string; expiresAt: number | undefined }>();
  const puts: { key: string; ttl: number | undefined }[] = [];
  const checked = (key: string) => {
    const problem = kvKeyProblem(key);
    if (problem) throw new TypeError(`KVStore: invalid key: ${problem}`);
    return key;
  };
  const live = (key: string) => {
    const value = values.get(key);
    if (value?.expiresAt !== undefined && value.expiresAt <= now()) values.delete(key);
    return values.get(key);
  };
  const store: FastlyKvStore = {
    async get(key) {
      const value = live(checked(key));
      return value ? { text: async () => value.text } : null;
    },
    async put(key, text, { ttl }) {
      puts.push({ key: checked(key), ttl });
      values.set(key, { text, expiresAt: ttl === undefined ? undefined : now() + ttl * 1000 });
    },
    async delete(key) {
      if (!live(checked(key))) throw new TypeError(KV_DELETE_NOT_FOUND);
      values.delete(key);
    },
    // Keys in order; the cursor is opaque to callers (here: the last key listed, base64).
    async list({ prefix = "", cursor, limit = 1000 }) {
      const after = cursor === undefined ? undefined : Buffer.from(cursor, "base64").toString();
      const keys = [...values.keys()]
        .filter((key) => live(key) && key.startsWith(prefix) && (after === undefined || key > after))
        .sort();
      const page = keys.slice(0, limit);
      const more = keys.length > page.length;
      return { list: page, cursor: more ? Buffer.from(page.at(-1)!).toString("base64") : undefined };
    },
  };
  return { store, puts };
}
