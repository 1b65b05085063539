// AUTH_JWKS_URL's keys, kept through the provider's outages. jose's remote key set refetches once
// its copy is stale and, when that fails, drops the keys it had: a provider outage became ours.
// Here the last good set keeps verifying for a bounded while (RFC 5861's stale-if-error), a stale
// set is refreshed behind the request that noticed, one refresh at a time, and a failed refresh
// is retried with a growing delay rather than by every request. The set an earlier instance
// stored (stored-key-set.ts) is taken only when this instance's own fetch failed or is late: the
// KV store is written by more than this service (other Workers or services bound to it, whoever
// holds its API token), so what it holds is never trusted as fresh, only as the provider's last
// word while the provider cannot be asked. An instance started during an outage still verifies
// what the others do; while the provider answers, only its answer counts. jose still reads the
// set and picks the key (createLocalJWKSet): only the keeping is this file's.
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { bytesUpTo } from "../lib/bounded-body.ts";
import { withDeadline } from "../lib/deadline.ts";
import { elapsedSince } from "../lib/elapsed.ts";
import { errorCauses, errorMessage, type Logger, silentLogger } from "../log.ts";
import { holdsVerifyingKey } from "./key-check.ts";
import type { KeySet, KeySetStore } from "./stored-key-set.ts";

/** AUTH_JWKS_URL could not be fetched or read, and no cached copy decides: the token may be fine. */
export class KeysUnavailableError extends Error {
  override name = "KeysUnavailableError";
}

/** Keeps work alive after the answer (Workers' and Compute's `waitUntil`); absent: it just runs. */
export type Background = (work: Promise<unknown>) => void;

export interface KeySetCacheOptions {
  url: string;
  fetch: typeof fetch;
  /** A fetched set is used without refreshing this long. */
  freshMs: number;
  /** Past that, while refreshes fail, it still verifies this long. */
  staleIfErrorMs: number;
  /** A token naming a key the set lacks refetches it, unless it was fetched less than this ago. */
  cooldownMs: number;
  /** One fetch of the set, answer and body (default 5 s, as jose's). */
  timeoutMs?: number;
  /** Where the last good set outlives this instance; absent, it lives in memory only. */
  store?: KeySetStore;
  /** How long a request with no usable set waits for the provider before taking the stored set (default 1 s). */
  storeAfterMs?: number;
  /** Where each failed fetch is reported: the only sign of an outage while the stale set verifies. */
  logger?: Logger;
  now?: () => number;
}

export type CachedKeySet = (
  header: Parameters<JWTVerifyGetKey>[0],
  token: Parameters<JWTVerifyGetKey>[1],
  background?: Background,
) => ReturnType<JWTVerifyGetKey>;

const DEFAULT_TIMEOUT_MS = 5_000;
/** The first retry of a failed fetch; later ones wait twice as long as the one before. */
export const FIRST_RETRY_MS = 1_000;
const LONGEST_RETRY_MS = 60_000;
/**
 * The largest key set answer read: providers publish a few kilobytes. A larger one fails as any
 * bad answer does (the last good set keeps verifying) instead of taking the instance's memory.
 */
export const MAX_KEY_SET_BYTES = 1024 * 1024;

/** A set in memory; `fromStore`: read from the KV store, so refreshed whenever a retry is due. */
type LoadedKeySet = KeySet & { fromStore?: boolean };

export function cachedRemoteKeySet(options: KeySetCacheOptions): CachedKeySet {
  const {
    freshMs,
    staleIfErrorMs,
    cooldownMs,
    store,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    storeAfterMs = FIRST_RETRY_MS,
    logger = silentLogger,
    now = () => Date.now(),
  } = options;
  let loaded: LoadedKeySet | undefined;
  let refreshing: { done: Promise<boolean>; startedAt: number } | undefined;
  let failures = 0;
  /** After a failed fetch, the next one waits `retry.delayMs` from `retry.from`. */
  let retry = { from: Number.NEGATIVE_INFINITY, delayMs: 0 };
  const retryDue = (at: number) => elapsedSince(at, retry.from) >= retry.delayMs;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  const usable = (set: KeySet | undefined, at: number) =>
    set !== undefined && at - set.fetchedAt <= freshMs + staleIfErrorMs;

  /** One refresh per isolate or process; resolves whether it brought a new set. */
  function refresh(at: number, background: Background | undefined): Promise<boolean> {
    // A refresh older than its own deadline was cut off with the request that ran it (Workers
    // cancel what a finished request left running): it will never settle, so it is not joined.
    if (refreshing && at - refreshing.startedAt < 2 * timeoutMs) return refreshing.done;
    fetchedAt = at;
    const attempt = {
      startedAt: at,
      done: fetchKeySet(options.url, options.fetch, timeoutMs).then(
        (fetched) => {
          loaded = { ...fetched, fetchedAt: now() };
          failures = 0;
          retry = { from: Number.NEGATIVE_INFINITY, delayMs: 0 };
          keep(loaded, background);
          return true;
        },
        (error: unknown) => {
          failures++;
          retry = { from: now(), delayMs: Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), LONGEST_RETRY_MS, freshMs) };
          reportFailure(error);
          return false;
        },
      ),
    };
    refreshing = attempt;
    void attempt.done.then(() => {
      if (refreshing === attempt) refreshing = undefined;
    });
    return attempt.done;
  }

  // One line per failed fetch (they are spaced by the retry delay): why, and until when the set in
  // memory still verifies; past that, every token its keys signed is answered 503.
  const reportFailure = (error: unknown) =>
    logger.log("warn", "jwks_fetch_failed", {
      error: errorMessage(error),
      failures,
      keysVerifyUntil:
        loaded && usable(loaded, now()) ? new Date(loaded.fetchedAt + freshMs + staleIfErrorMs).toISOString() : null,
    });

  const keep = (set: KeySet, background: Background | undefined) => {
    const writing = store?.keep(set);
    if (writing) background?.(writing);
  };

  async function usableKeys(at: number, background: Background | undefined): Promise<JWTVerifyGetKey> {
    if (loaded && usable(loaded, at)) {
      if ((loaded.fromStore || elapsedSince(at, loaded.fetchedAt) > freshMs) && retryDue(at)) {
        const done = refresh(at, background);
        background?.(done);
      }
      return loaded.keys;
    }
    // Nothing that may verify: ask the provider, unless it failed moments ago.
    const fetching = refreshing || retryDue(at) ? refresh(at, background) : undefined;
    if (fetching && (await settledWithin(fetching, storeAfterMs))) return loaded!.keys;
    // The provider failed or is late: the set an earlier instance stored may verify meanwhile.
    const copy = await storedCopy(at);
    if (copy) return copy.keys;
    if (fetching && (await fetching)) return loaded!.keys;
    throw unavailable();
  }

  async function storedCopy(at: number): Promise<KeySet | undefined> {
    const copy = await store?.read(at);
    // The provider may have answered meanwhile: its set wins over any copy.
    if (loaded && usable(loaded, at) && !loaded.fromStore) return loaded;
    if (!copy || !usable(copy, at)) return undefined;
    loaded = { ...copy, fromStore: true };
    return loaded;
  }

  return async (header, token, background) => {
    const at = now();
    const keys = await usableKeys(at, background);
    try {
      return await keys(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A key the set lacks: rotated in at the provider, or never its. Only the provider tells
      // the two apart: it is asked again, unless it was asked moments ago.
      if (!refreshing && failures > 0 && !retryDue(at)) throw unavailable();
      if (!refreshing && failures === 0 && elapsedSince(at, fetchedAt) < cooldownMs) throw error;
      if (!(await refresh(at, background))) throw unavailable();
      return loaded!.keys(header, token);
    }
  };
}

/** Whether `work` resolved true within `ms` (false: it resolved false, or not yet). */
async function settledWithin(work: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const unavailable = () => new KeysUnavailableError("the JWKS cannot be fetched and no cached copy holds the key");

async function fetchKeySet(url: string, send: typeof fetch, timeoutMs: number) {
  try {
    // The body's read included: a provider that answers headers and stalls is as unreachable.
    return await withDeadline(async (signal) => {
      // Never followed: a redirect could lead off the https:// URL the setting was checked as, to
      // plain http or another host. "manual" is what every runtime takes (Workers refuse "error");
      // the 3xx then fails as any answer but 200 does. Fastly's backends never follow one.
      const response = await send(url, { headers: { accept: "application/json" }, redirect: "manual", signal });
      if (response.status !== 200) throw new Error(`it answered ${response.status}`);
      const jwks = JSON.parse(await keySetText(response)) as JSONWebKeySet;
      const keys = createLocalJWKSet(jwks); // throws for what is not a JWKS
      if (!holdsVerifyingKey(jwks)) throw new Error("it holds no key a token could be verified with");
      return { jwks, keys };
    }, timeoutMs);
  } catch (error) {
    const why = `${error instanceof Error ? error.message : String(error)}${errorCauses(error)}`;
    throw new KeysUnavailableError(`the JWKS could not be fetched: ${why}`);
  }
}

/** The answer's text, up to MAX_KEY_SET_BYTES (a declared length past it is not read at all). */
async function keySetText(response: Response): Promise<string> {
  const tooLarge = new Error(`its answer is over ${MAX_KEY_SET_BYTES} bytes`);
  if (Number(response.headers.get("content-length") ?? "0") > MAX_KEY_SET_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge;
  }
  const bytes = await bytesUpTo(response.body, MAX_KEY_SET_BYTES);
  if (bytes === "too large") throw tooLarge;
  return new TextDecoder().decode(bytes);
}
