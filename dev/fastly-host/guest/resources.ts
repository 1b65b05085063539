import { fail, Status } from "../abi.ts";
import type { HeaderList } from "../header-list.ts";
import type { KvEntry } from "../kv-stores.ts";

// Everything a guest holds a handle to during one request. One table for all kinds: a handle
// names one thing, and using it as another kind is BADF.

/** A body buffered in the host, or one streaming out (after `send_downstream` with streaming). */
export class Body {
  readonly kind = "body";
  private chunks: Uint8Array[] = [];
  /** Set while the body streams to the client: writes go straight out. */
  stream: ((chunk: Uint8Array) => void) | undefined;

  constructor(initial?: Uint8Array) {
    if (initial?.length) this.chunks.push(initial);
  }

  get length(): number {
    return this.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  }

  pushBack(data: Uint8Array): void {
    if (this.stream) this.stream(data);
    else if (data.length) this.chunks.push(data);
  }

  pushFront(data: Uint8Array): void {
    if (this.stream) fail(Status.INVAL, "cannot write to the front of a streaming body");
    if (data.length) this.chunks.unshift(data);
  }

  /** Up to `max` bytes from the front; empty at the end of the body. */
  read(max: number): Uint8Array {
    if (this.stream) fail(Status.INVAL, "cannot read a streaming body");
    const out: Uint8Array[] = [];
    let room = max;
    while (room > 0 && this.chunks.length) {
      const chunk = this.chunks[0]!;
      if (chunk.length <= room) {
        out.push(chunk);
        this.chunks.shift();
        room -= chunk.length;
      } else {
        out.push(chunk.subarray(0, room));
        this.chunks[0] = chunk.subarray(room);
        room = 0;
      }
    }
    return Buffer.concat(out);
  }

  /** Takes the whole content, leaving the body empty. */
  drain(): Uint8Array {
    const all = Buffer.concat(this.chunks);
    this.chunks = [];
    return all;
  }
}

interface RequestParts {
  kind: "request";
  method: string;
  uri: string;
  headers: HeaderList;
}

interface ResponseParts {
  kind: "response";
  status: number;
  headers: HeaderList;
}

/** A backend request under way; `rpc` is the main thread's request id. */
interface PendingRequest {
  kind: "pending-request";
  rpc: number;
}

/** KV operations complete when issued (as in Viceroy); the handle carries the outcome. */
type KvPending =
  | { kind: "kv-lookup"; entry: KvEntry | null }
  | { kind: "kv-insert"; code: number }
  | { kind: "kv-delete"; code: number }
  | { kind: "kv-list"; listing: string | undefined; code: number };

type Resource =
  | Body
  | RequestParts
  | ResponseParts
  | PendingRequest
  | KvPending
  | { kind: "kv-store"; name: string }
  | { kind: "config-store"; name: string }
  | { kind: "secret-store"; name: string }
  | { kind: "secret"; plaintext: Uint8Array }
  | { kind: "log-endpoint"; name: string }
  | { kind: "next-request"; timeoutMs: number };

type Kind = Resource["kind"];
type OfKind<K extends Kind> = Extract<Resource, { kind: K }>;

export class Handles {
  private readonly table = new Map<number, Resource>();
  private next = 1;

  add(resource: Resource): number {
    const handle = this.next++;
    this.table.set(handle, resource);
    return handle;
  }

  get<K extends Kind>(handle: number, ...kinds: K[]): OfKind<K> {
    const resource = this.table.get(handle);
    if (!resource || !(kinds as Kind[]).includes(resource.kind)) {
      fail(Status.BADF, `handle ${handle} is not a live ${kinds.join(" or ")}`);
    }
    return resource as OfKind<K>;
  }

  /** Gets and invalidates: the guest gave the resource up (sent it, closed it, waited on it). */
  take<K extends Kind>(handle: number, ...kinds: K[]): OfKind<K> {
    const resource = this.get(handle, ...kinds);
    this.table.delete(handle);
    return resource;
  }

  has(handle: number): boolean {
    return this.table.has(handle);
  }

  /** Back to a fresh instance's: no handles, numbering from 1 again. */
  clear(): void {
    this.table.clear();
    this.next = 1;
  }
}
