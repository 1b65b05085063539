// The parts of Fastly's Compute ABI (the `compute-at-edge` witx files) this host speaks. Every host
// call returns a `FastlyStatus`; results go through out-pointers into the guest's memory.

export const Status = {
  OK: 0,
  ERROR: 1,
  INVAL: 2,
  BADF: 3,
  BUFLEN: 4,
  UNSUPPORTED: 5,
  BADALIGN: 6,
  HTTPINVALID: 7,
  HTTPUSER: 8,
  HTTPINCOMPLETE: 9,
  NONE: 10,
  HTTPHEADTOOLARGE: 11,
  HTTPINVALIDSTATUS: 12,
  LIMITEXCEEDED: 13,
  AGAIN: 14,
} as const;

type StatusCode = (typeof Status)[keyof typeof Status];

/** `$kv_error`, written next to an OK status by the `*_wait` calls. */
export const KvError = {
  UNINITIALIZED: 0,
  OK: 1,
  BAD_REQUEST: 2,
  NOT_FOUND: 3,
  PRECONDITION_FAILED: 4,
  PAYLOAD_TOO_LARGE: 5,
  INTERNAL_ERROR: 6,
  TOO_MANY_REQUESTS: 7,
} as const;

export type KvErrorCode = (typeof KvError)[keyof typeof KvError];

export const KvInsertMode = ["overwrite", "add", "append", "prepend"] as const;
export type KvInsertModeName = (typeof KvInsertMode)[number];

/** `$kv_insert_config_options` and `$kv_list_config_options` flag bits. */
export const KvInsertFlags = { METADATA: 1 << 3, TIME_TO_LIVE_SEC: 1 << 4, IF_GENERATION_MATCH: 1 << 5 } as const;
export const KvListFlags = { CURSOR: 1 << 1, LIMIT: 1 << 2, PREFIX: 1 << 3 } as const;

/** `$send_error_detail_tag` values this host reports. */
export const SendErrorTag = {
  DESTINATION_NOT_FOUND: 4,
  CONNECTION_REFUSED: 7,
  CONNECTION_TERMINATED: 8,
  CONNECTION_TIMEOUT: 9,
  HTTP_RESPONSE_TIMEOUT: 16,
  INTERNAL_ERROR: 22,
} as const;

export const HttpVersion = { HTTP_10: 1, HTTP_11: 2 } as const;
export const BodyWriteEnd = { BACK: 0, FRONT: 1 } as const;
export const SELECT_TIMED_OUT = 0xffffffff;

/** A host call's failure: the status the guest receives. */
export class HostCallError extends Error {
  constructor(
    readonly status: StatusCode,
    message: string,
  ) {
    super(message);
  }
}

export const fail = (status: StatusCode, message: string): never => {
  throw new HostCallError(status, message);
};

/**
 * Reads and writes the guest's linear memory. Views are taken afresh on every access because the
 * guest can grow its memory (which detaches the old buffer) during any host call.
 */
export class GuestMemory {
  constructor(private readonly memory: () => WebAssembly.Memory) {}

  private view() {
    return new DataView(this.memory().buffer);
  }

  byteLength(): number {
    return this.memory().buffer.byteLength;
  }

  bytes(ptr: number, len: number): Uint8Array {
    return new Uint8Array(this.memory().buffer, ptr, len).slice();
  }

  text(ptr: number, len: number): string {
    return new TextDecoder("utf-8", { fatal: true }).decode(this.bytes(ptr, len));
  }

  /** Header names and values: bytes kept as-is, one char per byte (as Node's HTTP stack does). */
  latin1(ptr: number, len: number): string {
    return Buffer.from(this.bytes(ptr, len)).toString("latin1");
  }

  write(ptr: number, data: Uint8Array): void {
    new Uint8Array(this.memory().buffer, ptr, data.length).set(data);
  }

  u32(ptr: number): number {
    return this.view().getUint32(ptr, true);
  }

  u64(ptr: number): bigint {
    return this.view().getBigUint64(ptr, true);
  }

  setU16(ptr: number, value: number): void {
    this.view().setUint16(ptr, value, true);
  }

  setU32(ptr: number, value: number): void {
    this.view().setUint32(ptr, value, true);
  }

  setU64(ptr: number, value: bigint): void {
    this.view().setBigUint64(ptr, value, true);
  }

  setI64(ptr: number, value: bigint): void {
    this.view().setBigInt64(ptr, value, true);
  }

  /** Copies `data` to a guest buffer of `capacity` bytes; too small → BUFLEN with the needed size. */
  writeSized(data: Uint8Array, ptr: number, capacity: number, nwrittenOut: number): void {
    this.setU32(nwrittenOut, data.length);
    if (data.length > capacity) fail(Status.BUFLEN, `buffer of ${capacity} bytes, ${data.length} needed`);
    this.write(ptr, data);
  }
}
