import { KvError, type KvErrorCode, type KvInsertModeName } from "./abi.ts";

// Fastly's KV Stores as Viceroy keeps them: in memory for the life of the host process, with
// Fastly's key rules, TTLs, insert modes, generations and paginated listing.

interface StoredValue {
  body: Uint8Array;
  metadata: string | null;
  generation: bigint;
  expiresAt: number | undefined;
}

export interface KvEntry {
  body: Uint8Array;
  metadata: string | null;
  generation: bigint;
}

export interface KvInsert {
  body: Uint8Array;
  mode: KvInsertModeName;
  ifGenerationMatch?: bigint;
  metadata?: string;
  ttlSeconds?: number;
}

export interface KvListQuery {
  prefix?: string;
  cursor?: string;
  limit?: number;
}

const KV_LIST_DEFAULT_LIMIT = 1000;
const MAX_KEY_BYTES = 1024;

/** Why a key is refused, or undefined when Fastly accepts it. */
export function kvKeyProblem(key: string): string | undefined {
  const bytes = new TextEncoder().encode(key).length;
  if (bytes === 0) return "a key cannot be empty";
  if (bytes > MAX_KEY_BYTES) return `a key is at most ${MAX_KEY_BYTES} bytes`;
  if (key.startsWith(".well-known/acme-challenge")) return "a key cannot start with .well-known/acme-challenge";
  if (key === "." || key === ".." || /(^|\/)\.\.?(\/|$)/.test(key)) return "a key cannot have . or .. segments";
  const forbidden = /[\r\n#;?^|]/.exec(key);
  if (forbidden) return `a key cannot contain ${JSON.stringify(forbidden[0])}`;
  if ([...key].length === 1 && /^[\u0000-\u0020\ufffe\uffff]$/.test(key))
    return "a key cannot be a single control character";
  return undefined;
}

export class KvStores {
  private readonly stores = new Map<string, Map<string, StoredValue>>();
  private lastGeneration = 0n;

  constructor(
    names: Iterable<string>,
    private readonly now: () => number = Date.now,
  ) {
    for (const name of names) this.stores.set(name, new Map());
  }

  has(store: string): boolean {
    return this.stores.has(store);
  }

  lookup(store: string, key: string): KvEntry | null {
    const value = this.live(store, key);
    return value ? { body: value.body, metadata: value.metadata, generation: value.generation } : null;
  }

  insert(store: string, key: string, put: KvInsert): KvErrorCode {
    const existing = this.live(store, key);
    if (put.ifGenerationMatch !== undefined && existing && existing.generation !== put.ifGenerationMatch) {
      return KvError.PRECONDITION_FAILED;
    }
    if (put.mode === "add" && existing) return KvError.PRECONDITION_FAILED;
    const body =
      put.mode === "append" && existing
        ? concat(existing.body, put.body)
        : put.mode === "prepend" && existing
          ? concat(put.body, existing.body)
          : put.body;
    this.entries(store).set(key, {
      body,
      metadata: put.metadata ?? null,
      generation: this.nextGeneration(),
      expiresAt: put.ttlSeconds === undefined ? undefined : this.now() + put.ttlSeconds * 1000,
    });
    return KvError.OK;
  }

  /** Deleting a missing key succeeds, as in Viceroy. */
  delete(store: string, key: string): KvErrorCode {
    this.entries(store).delete(key);
    return KvError.OK;
  }

  /** The listing body Fastly returns: `{data: [...keys], meta: {limit, prefix?, next_cursor?}}`. */
  list(store: string, { prefix, cursor, limit = KV_LIST_DEFAULT_LIMIT }: KvListQuery): string | KvErrorCode {
    let after: string | undefined;
    if (cursor !== undefined) {
      after = Buffer.from(cursor, "base64").toString("utf8");
      if (Buffer.from(after, "utf8").toString("base64") !== cursor) return KvError.BAD_REQUEST;
    }
    const keys = [...this.entries(store).keys()]
      .filter((key) => this.live(store, key))
      .filter((key) => (after === undefined || key > after) && (prefix === undefined || key.startsWith(prefix)))
      .sort();
    const page = keys.slice(0, limit);
    const last = page.at(-1);
    const more = keys.length > page.length && last !== undefined;
    const meta = {
      limit,
      ...(prefix === undefined ? {} : { prefix }),
      ...(more ? { next_cursor: Buffer.from(last, "utf8").toString("base64") } : {}),
    };
    return JSON.stringify({ data: page, meta });
  }

  private entries(store: string): Map<string, StoredValue> {
    const entries = this.stores.get(store);
    if (!entries) throw new Error(`no KV store named ${store}`);
    return entries;
  }

  private live(store: string, key: string): StoredValue | undefined {
    const entries = this.entries(store);
    const value = entries.get(key);
    if (value?.expiresAt !== undefined && value.expiresAt <= this.now()) {
      entries.delete(key);
      return undefined;
    }
    return value;
  }

  // Strictly increasing, so a stale generation can never match a newer write.
  private nextGeneration(): bigint {
    const candidate = BigInt(this.now()) * 1_000_000n;
    this.lastGeneration = candidate > this.lastGeneration ? candidate : this.lastGeneration + 1n;
    return this.lastGeneration;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
