import { fail, KvError, KvInsertFlags, KvInsertMode, KvListFlags, SELECT_TIMED_OUT, Status } from "../abi.ts";
import { type KvListQuery, kvKeyProblem } from "../kv-stores.ts";
import { type GuestContext, hostModule } from "./context.ts";
import { Body } from "./resources.ts";

// fastly_async_io, fastly_kv_store, fastly_config_store, fastly_secret_store, fastly_log and
// fastly_backend.

export function asyncIoModule(ctx: GuestContext) {
  const { memory, handles, link } = ctx;
  // Bodies are buffered in full and KV operations finish when issued: only backend requests wait.
  const pendingRpc = (h: number): number | undefined => {
    const item = handles.get(h, "body", "pending-request", "kv-lookup", "kv-insert", "kv-delete", "kv-list");
    return item.kind === "pending-request" && !link.isDone(item.rpc) ? item.rpc : undefined;
  };
  return hostModule({
    is_ready: (h: number, out: number) => memory.setU32(out, pendingRpc(h) === undefined ? 1 : 0),
    select: (ptr: number, count: number, timeoutMs: number, out: number) => {
      if (count === 0 && timeoutMs === 0) fail(Status.INVAL, "select on nothing, forever");
      const items = Array.from({ length: count }, (_, i) => memory.u32(ptr + 4 * i));
      const rpcs = items.map(pendingRpc);
      const ready = rpcs.indexOf(undefined);
      if (ready >= 0) return memory.setU32(out, ready);
      const first = link.waitAny(rpcs as number[], timeoutMs === 0 ? undefined : timeoutMs);
      memory.setU32(out, first ?? SELECT_TIMED_OUT);
    },
  });
}

export function kvStoreModule(ctx: GuestContext) {
  const { memory, handles, link } = ctx;
  const store = (h: number) => handles.get(h, "kv-store").name;
  const key = (ptr: number, len: number) => {
    const text = memory.text(ptr, len);
    const problem = kvKeyProblem(text);
    if (problem) fail(Status.INVAL, `bad KV key: ${problem}`);
    return text;
  };
  const optionalText = (flags: number, flag: number, ptr: number, len: number) => {
    if (!(flags & flag)) return undefined;
    if (len === 0) fail(Status.INVAL, "an option's value is empty");
    return memory.text(ptr, len);
  };
  const settle = (h: number, kind: "kv-insert" | "kv-delete", errorOut: number) =>
    memory.setU32(errorOut, handles.take(h, kind).code);
  return hostModule({
    open: (ptr: number, len: number, out: number) => {
      const name = memory.text(ptr, len);
      if (!(name in ctx.config.kvStores)) fail(Status.INVAL, `no KV store named ${name}`);
      memory.setU32(out, handles.add({ kind: "kv-store", name }));
    },
    lookup: (h: number, keyPtr: number, keyLen: number, _mask: number, _config: number, out: number) => {
      const { entry } = link.call({ op: "kv.lookup", store: store(h), key: key(keyPtr, keyLen) });
      memory.setU32(out, handles.add({ kind: "kv-lookup", entry }));
    },
    lookup_wait_v2: (
      h: number,
      bodyOut: number,
      metaBuf: number,
      metaLen: number,
      nwrittenOut: number,
      genOut: number,
      errorOut: number,
    ) => {
      const { entry } = handles.take(h, "kv-lookup");
      if (!entry) return memory.setU32(errorOut, KvError.NOT_FOUND);
      memory.setU32(bodyOut, handles.add(new Body(entry.body)));
      memory.writeSized(Buffer.from(entry.metadata ?? ""), metaBuf, metaLen, nwrittenOut);
      memory.setU64(genOut, entry.generation);
      memory.setU32(errorOut, KvError.OK);
    },
    insert: (
      h: number,
      keyPtr: number,
      keyLen: number,
      bodyHandle: number,
      mask: number,
      config: number,
      out: number,
    ) => {
      const name = store(h);
      const put = {
        body: handles.take(bodyHandle, "body").drain(),
        mode: KvInsertMode[memory.u32(config)] ?? fail(Status.INVAL, "unknown insert mode"),
        metadata: optionalText(mask, KvInsertFlags.METADATA, memory.u32(config + 8), memory.u32(config + 12)),
        ttlSeconds: mask & KvInsertFlags.TIME_TO_LIVE_SEC ? memory.u32(config + 16) : undefined,
        ifGenerationMatch: mask & KvInsertFlags.IF_GENERATION_MATCH ? memory.u64(config + 24) : undefined,
      };
      const { code } = link.call({ op: "kv.insert", store: name, key: key(keyPtr, keyLen), put });
      memory.setU32(out, handles.add({ kind: "kv-insert", code }));
    },
    insert_wait: (h: number, errorOut: number) => settle(h, "kv-insert", errorOut),
    delete: (h: number, keyPtr: number, keyLen: number, _mask: number, _config: number, out: number) => {
      const { code } = link.call({ op: "kv.delete", store: store(h), key: key(keyPtr, keyLen) });
      memory.setU32(out, handles.add({ kind: "kv-delete", code }));
    },
    delete_wait: (h: number, errorOut: number) => settle(h, "kv-delete", errorOut),
    list: (h: number, mask: number, config: number, out: number) => {
      const query: KvListQuery = {
        cursor: optionalText(mask, KvListFlags.CURSOR, memory.u32(config + 4), memory.u32(config + 8)),
        limit: mask & KvListFlags.LIMIT ? memory.u32(config + 12) : undefined,
        prefix: optionalText(mask, KvListFlags.PREFIX, memory.u32(config + 16), memory.u32(config + 20)),
      };
      const answer = link.call({ op: "kv.list", store: store(h), query });
      const listing = "listing" in answer ? answer.listing : undefined;
      const code = "code" in answer ? answer.code : KvError.OK;
      memory.setU32(out, handles.add({ kind: "kv-list", listing, code }));
    },
    list_wait: (h: number, bodyOut: number, errorOut: number) => {
      const { listing, code } = handles.take(h, "kv-list");
      if (listing !== undefined) memory.setU32(bodyOut, handles.add(new Body(Buffer.from(listing))));
      memory.setU32(errorOut, code);
    },
  });
}

export function configStoreModule(ctx: GuestContext) {
  const { memory, handles } = ctx;
  return hostModule({
    open: (ptr: number, len: number, out: number) => {
      const name = memory.text(ptr, len);
      if (!(name in ctx.config.configStores)) fail(Status.BADF, `no config store named ${name}`);
      memory.setU32(out, handles.add({ kind: "config-store", name }));
    },
    get: (h: number, keyPtr: number, keyLen: number, buf: number, bufLen: number, nwrittenOut: number) => {
      const value = ctx.config.configStores[handles.get(h, "config-store").name]![memory.text(keyPtr, keyLen)];
      if (value === undefined) fail(Status.NONE, "no such config item");
      memory.writeSized(Buffer.from(value!), buf, bufLen, nwrittenOut);
    },
  });
}

export function secretStoreModule(ctx: GuestContext) {
  const { memory, handles } = ctx;
  return hostModule({
    open: (ptr: number, len: number, out: number) => {
      const name = memory.text(ptr, len);
      if (!(name in ctx.config.secretStores)) fail(Status.NONE, `no secret store named ${name}`);
      memory.setU32(out, handles.add({ kind: "secret-store", name }));
    },
    get: (h: number, keyPtr: number, keyLen: number, out: number) => {
      const value = ctx.config.secretStores[handles.get(h, "secret-store").name]![memory.text(keyPtr, keyLen)];
      if (value === undefined) fail(Status.NONE, "no such secret");
      memory.setU32(out, handles.add({ kind: "secret", plaintext: Buffer.from(value!) }));
    },
    plaintext: (h: number, buf: number, bufLen: number, nwrittenOut: number) =>
      memory.writeSized(handles.get(h, "secret").plaintext, buf, bufLen, nwrittenOut),
    from_bytes: (ptr: number, len: number, out: number) =>
      memory.setU32(out, handles.add({ kind: "secret", plaintext: memory.bytes(ptr, len) })),
  });
}

export function logModule(ctx: GuestContext) {
  const { memory, handles, link } = ctx;
  return hostModule({
    endpoint_get: (ptr: number, len: number, out: number) =>
      memory.setU32(out, handles.add({ kind: "log-endpoint", name: memory.text(ptr, len) })),
    write: (h: number, ptr: number, len: number, nwrittenOut: number) => {
      link.emit({ event: "log", stream: handles.get(h, "log-endpoint").name, text: memory.text(ptr, len) });
      memory.setU32(nwrittenOut, len);
    },
  });
}

export function backendModule(ctx: GuestContext) {
  const { memory } = ctx;
  return hostModule({
    exists: (ptr: number, len: number, out: number) =>
      memory.setU32(out, memory.text(ptr, len) in ctx.config.backends ? 1 : 0),
  });
}

/** The guest's memory in MiB, rounded up, as Viceroy counts it (reused instances check it). */
export function computeRuntimeModule(ctx: GuestContext) {
  const { memory } = ctx;
  return hostModule({
    get_heap_mib: (out: number) => memory.setU32(out, Math.ceil(memory.byteLength() / 2 ** 20)),
  });
}
