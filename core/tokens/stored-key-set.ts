// The last good AUTH_JWKS_URL key set, kept in the KV store so that it outlives an instance. A
// Fastly Compute instance, a Workers isolate or a restarted process starts with an empty memory:
// without this copy, one started while the identity provider was down answered 503 even for
// tokens whose key every older instance still held. Written only from a successful fetch of the
// URL, under a key derived from the URL and holding it, so a copy fetched for an earlier setting
// is never used. Read only when this instance's own fetch failed or is late (jwks-cache.ts): the
// store is writable by more than this service, so a copy is never taken as fresh. Best-effort
// like every KV use: a failing store reads as "nothing stored". With AUTH_JWKS_KV_SECRET set
// (key-set-mac.ts), a copy carries a MAC over its URL, fetch time and keys, and one without a
// MAC that holds is refused: then only this deployment's own instances can have stored it.
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import * as v from "valibot";
import { withDeadline } from "../lib/deadline.ts";
import { elapsedSince } from "../lib/elapsed.ts";
import { parseJsonOrUndefined } from "../lib/json.ts";
import { sha256Hex } from "../lib/sha256.ts";
import { errorMessage, type Logger } from "../log.ts";
import { type KvCache, MIN_KV_TTL_SECONDS } from "../ports/kv.ts";
import type { KeySetMac } from "./key-set-mac.ts";

/** Versioned and apart from every link cache key (`links/…`): nothing else is written under it. */
export const KEY_SET_KEY_PREFIX = "tokens/jwks/v1/";

/** `tokens/jwks/v1/` + 64 hex digits of SHA-256(url): legal on every store, whatever the URL. */
export const keySetKey = async (url: string) => KEY_SET_KEY_PREFIX + (await sha256Hex(url));

export interface KeySet {
  jwks: JSONWebKeySet;
  keys: JWTVerifyGetKey;
  /** Epoch ms of its fetch, by whichever instance made it: freshness and the bound run from here. */
  fetchedAt: number;
}

export interface KeySetStore {
  /** The stored copy, or undefined (none, unreadable, a failing store, or read moments ago). */
  read(at: number): Promise<KeySet | undefined>;
  /** Stores a fetched set; undefined when the store holds it already. Never rejects. */
  keep(set: KeySet): Promise<void> | undefined;
}

export interface KeySetStoreOptions {
  url: string;
  /** A set this young is fresh: one the store holds this fresh, with the same keys, is not rewritten. */
  freshMs: number;
  /** How long after its fetch a set may still verify (fresh + stale-if-error): the entry's lifetime. */
  lifetimeMs: number;
  /** Reads at most once per this span, so an instance with nothing to verify with reads once, not per request. */
  readEveryMs: number;
  /** Deadline of each KV call. */
  timeoutMs: number;
  /** Signs what is stored and refuses what it did not sign (AUTH_JWKS_KV_SECRET); absent: copies are unsigned. */
  mac?: KeySetMac;
  logger: Logger;
  now?: () => number;
}

// Only the envelope is checked here: jose's createLocalJWKSet refuses what is not a JWKS.
const StoredEntry = v.object({
  url: v.string(),
  fetchedAt: v.pipe(v.number(), v.finite()),
  jwks: v.custom<JSONWebKeySet>((jwks) => typeof jwks === "object" && jwks !== null),
});
type StoredEntry = v.InferOutput<typeof StoredEntry>;
const isStoredEntry = (entry: unknown): entry is StoredEntry & { mac?: unknown } => v.is(StoredEntry, entry);

/** What the MAC covers, rebuilt from the entry's fields (JSON.stringify gives back what it wrote). */
const signedText = ({ url, fetchedAt, jwks }: StoredEntry) => JSON.stringify({ url, fetchedAt, jwks });

/** The stored value of a set fetched from `url` at `fetchedAt`: with its MAC when `mac` is given. */
export async function storedKeySetText(entry: StoredEntry, mac?: KeySetMac): Promise<string> {
  return JSON.stringify(mac ? { ...entry, mac: await mac.sign(signedText(entry)) } : entry);
}

export function kvKeySetStore(kv: KvCache, options: KeySetStoreOptions): KeySetStore {
  const { url, freshMs, lifetimeMs, readEveryMs, timeoutMs, mac, logger, now = () => Date.now() } = options;
  let key: Promise<string> | undefined;
  const keyOf = () => (key ??= keySetKey(url));
  let reading: Promise<KeySet | undefined> | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  /** The set this instance last read from or wrote to the store. */
  let known: { text: string; fetchedAt: number } | undefined;

  async function attempt<T>(operation: string, call: (key: string) => Promise<T>): Promise<{ value: T } | undefined> {
    try {
      const at = await keyOf();
      return { value: await withDeadline(() => call(at), timeoutMs) };
    } catch (error) {
      logger.log("warn", "jwks_store_failed", { operation, error: errorMessage(error) });
      return undefined;
    }
  }

  async function readCopy(): Promise<KeySet | undefined> {
    const text = (await attempt("get", (at) => kv.get(at)))?.value;
    if (text === undefined || text === null) return undefined;
    const stored = parseJsonOrUndefined(text);
    // The key is the URL's hash; the URL inside is compared too, so that no copy fetched for
    // another setting is ever taken for this one's.
    const keys = isStoredEntry(stored) && stored.url === url ? localKeySet(stored.jwks) : undefined;
    if (!isStoredEntry(stored) || !keys) {
      logger.log("warn", "jwks_store_unreadable", {});
      return undefined;
    }
    if (mac && !(typeof stored.mac === "string" && (await mac.verify(signedText(stored), stored.mac)))) {
      logger.log("warn", "jwks_store_unsigned", {});
      return undefined;
    }
    const { jwks } = stored;
    // Another machine's clock may run ahead: its copy counts as fetched now at the latest.
    const fetchedAt = Math.min(stored.fetchedAt, now());
    known = { text: JSON.stringify(jwks), fetchedAt };
    return { jwks, keys, fetchedAt };
  }

  return {
    read(at) {
      if (reading) return reading;
      if (elapsedSince(at, readAt) < readEveryMs) return Promise.resolve(undefined);
      readAt = at;
      reading = readCopy().finally(() => {
        reading = undefined;
      });
      return reading;
    },

    keep({ jwks, fetchedAt }) {
      const text = JSON.stringify(jwks);
      if (known && known.text === text && fetchedAt - known.fetchedAt < freshMs) return undefined;
      known = { text, fetchedAt };
      // Readers enforce the bound themselves; the store's expiry, at least its minimum, collects it.
      const ttlSeconds = Math.max(MIN_KV_TTL_SECONDS, Math.ceil((fetchedAt + lifetimeMs - now()) / 1000));
      return attempt("put", async (at) =>
        kv.put(at, await storedKeySetText({ url, fetchedAt, jwks }, mac), { ttlSeconds }),
      ).then((done) => {
        // Not written: the next fetch writes again.
        if (!done && known?.text === text) known = undefined;
      });
    },
  };
}

function localKeySet(jwks: object): JWTVerifyGetKey | undefined {
  try {
    return createLocalJWKSet(jwks as JSONWebKeySet);
  } catch {
    return undefined;
  }
}
