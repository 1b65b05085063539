import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { GuestMemory, Status } from "../abi.ts";
import { HeaderList } from "../header-list.ts";
import type { LocalServerConfig } from "../manifest.ts";
import { type GuestEvent, HostLink } from "../rpc.ts";
import type { GuestContext } from "./context.ts";
import { httpDownstreamModule } from "./downstream.ts";
import { httpBodyModule, httpRequestModule, httpResponseModule } from "./http-imports.ts";
import { Body, Handles } from "./resources.ts";
import { asyncIoModule, configStoreModule, kvStoreModule, secretStoreModule } from "./service-imports.ts";

// The host calls exercised directly, as the guest would call them: arguments are numbers and
// pointers into a real WebAssembly memory, answers are statuses and bytes written there.

const config: LocalServerConfig = {
  backends: { origin: { url: "http://127.0.0.1:9" } },
  kvStores: { cache: [] },
  configStores: { settings: { KEY: "a-value" } },
  secretStores: { secrets: { TOKEN: "s3cret" } },
};

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels.splice(0)) {
    channel.port1.close();
    channel.port2.close();
  }
});

function guest() {
  const wasm = new WebAssembly.Memory({ initial: 1 });
  const memory = new GuestMemory(() => wasm);
  const channel = new MessageChannel();
  channels.push(channel);
  const handles = new Handles();
  const ctx: GuestContext = {
    memory,
    handles,
    link: new HostLink(channel.port2, new Int32Array(new SharedArrayBuffer(4))),
    config,
    downstream: {
      request: handles.add({
        kind: "request",
        method: "POST",
        uri: "http://localhost/x",
        headers: HeaderList.from([
          ["Accept", "a"],
          ["accept", "b"],
          ["x-one", "1"],
        ]),
      }),
      body: handles.add(new Body(new TextEncoder().encode("hello"))),
      clientAddress: "::ffff:127.0.0.1",
    },
    requestOpen: true,
    nextRequestPending: false,
    response: { sent: false },
  };
  let free = 1024;
  const put = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    const ptr = free;
    memory.write(ptr, bytes);
    free += bytes.length + 8;
    return [ptr, bytes.length] as const;
  };
  const events = (): GuestEvent[] => {
    const out: GuestEvent[] = [];
    for (let m = receiveMessageOnPort(channel.port1); m; m = receiveMessageOnPort(channel.port1))
      out.push(m.message as GuestEvent);
    return out;
  };
  const read = (ptr: number, len: number) => Buffer.from(memory.bytes(ptr, len)).toString("latin1");
  return {
    ctx,
    memory,
    put,
    read,
    events,
    req: httpRequestModule(ctx),
    resp: httpResponseModule(ctx),
    body: httpBodyModule(ctx),
  };
}

describe("Fastly host calls", () => {
  it("hands over the downstream request and reads its method, URI and body", () => {
    const { ctx, memory, req, body, read } = guest();
    expect(req.body_downstream_get!(0, 4)).toBe(Status.OK);
    const [request, requestBody] = [memory.u32(0), memory.u32(4)];
    expect([request, requestBody]).toEqual([ctx.downstream.request, ctx.downstream.body]);
    expect(req.method_get!(request, 100, 16, 8)).toBe(Status.OK);
    expect(read(100, memory.u32(8))).toBe("POST");
    expect(req.uri_get!(request, 100, 4, 8)).toBe(Status.BUFLEN);
    expect(memory.u32(8)).toBe("http://localhost/x".length);
    expect(body.read!(requestBody, 200, 3, 8)).toBe(Status.OK);
    expect(read(200, memory.u32(8))).toBe("hel");
    expect(body.read!(requestBody, 200, 100, 8)).toBe(Status.OK);
    expect(read(200, memory.u32(8))).toBe("lo");
    expect(body.read!(requestBody, 200, 100, 8)).toBe(Status.OK);
    expect(memory.u32(8)).toBe(0);
  });

  it("hands over the client's address as Compute does: 4 octets for IPv4 (an IPv4-mapped peer included), 16 for IPv6", () => {
    const { ctx, memory } = guest();
    const downstream = httpDownstreamModule(ctx);
    expect(downstream.downstream_client_ip_addr!(ctx.downstream.request, 300, 8)).toBe(Status.OK);
    expect([...memory.bytes(300, memory.u32(8))]).toEqual([127, 0, 0, 1]);
    ctx.downstream.clientAddress = "2001:db8::1";
    expect(downstream.downstream_client_ip_addr!(ctx.downstream.request, 300, 8)).toBe(Status.OK);
    expect(memory.u32(8)).toBe(16);
    expect([...memory.bytes(300, 16)]).toEqual([0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 1]);
  });

  it("lists header names and values NUL-terminated, page by page, with a cursor", () => {
    const { ctx, memory, req, put, read } = guest();
    const h = ctx.downstream.request;
    expect(req.header_names_get!(h, 100, 64, 0, 16, 8)).toBe(Status.OK);
    expect(read(100, memory.u32(8))).toBe("accept\0x-one\0");
    expect(memory.u64(16)).toBe(0xffffffffffffffffn);
    const [name, nameLen] = put("Accept");
    expect(req.header_values_get!(h, name, nameLen, 100, 2, 0, 16, 8)).toBe(Status.OK);
    expect(read(100, memory.u32(8))).toBe("a\0");
    expect(memory.u64(16)).toBe(1n);
    expect(req.header_values_get!(h, name, nameLen, 100, 2, 1, 16, 8)).toBe(Status.OK);
    expect(read(100, memory.u32(8))).toBe("b\0");
    expect(req.header_names_get!(h, 100, 3, 0, 16, 8)).toBe(Status.BUFLEN);
    expect(memory.u32(8)).toBe("accept\0".length);
  });

  it("refuses bad headers, statuses and methods with the ABI's statuses", () => {
    const { memory, req, resp, put } = guest();
    expect(resp.new!(0)).toBe(Status.OK);
    const response = memory.u32(0);
    const [badName, badNameLen] = put("bad name");
    const [value, valueLen] = put("v");
    expect(resp.header_insert!(response, badName, badNameLen, value, valueLen)).toBe(Status.ERROR);
    const [absent, absentLen] = put("absent");
    expect(resp.header_remove!(response, absent, absentLen)).toBe(Status.INVAL);
    expect(resp.status_set!(response, 42)).toBe(Status.INVAL);
    expect(resp.status_set!(response, 418)).toBe(Status.OK);
    expect(resp.status_get!(response, 4)).toBe(Status.OK);
    expect(memory.u32(4) & 0xffff).toBe(418);
    expect(req.new!(0)).toBe(Status.OK);
    const [method, methodLen] = put("GE T");
    expect(req.method_set!(memory.u32(0), method, methodLen)).toBe(Status.HTTPINVALID);
  });

  it("a handle used as another kind of thing, or after it was given up, is BADF", () => {
    const { ctx, memory, resp, body } = guest();
    expect(resp.status_get!(ctx.downstream.body, 0)).toBe(Status.BADF);
    expect(body.close!(ctx.downstream.body)).toBe(Status.OK);
    expect(body.read!(ctx.downstream.body, 100, 10, 8)).toBe(Status.BADF);
    expect(body.read!(9999, 100, 10, 8)).toBe(Status.BADF);
    expect(memory.u32(8)).toBe(0);
  });

  it("sends one response downstream, whole or streaming, and refuses a second", () => {
    const { memory, resp, body, put, events } = guest();
    resp.new!(0);
    body.new!(4);
    const [data, dataLen] = put("payload");
    expect(body.write!(memory.u32(4), data, dataLen, 0, 8)).toBe(Status.OK);
    expect(resp.send_downstream!(memory.u32(0), memory.u32(4), 0)).toBe(Status.OK);
    expect(events()).toEqual([
      { event: "response", status: 200, headers: [], body: new TextEncoder().encode("payload") },
    ]);
    resp.new!(0);
    body.new!(4);
    expect(resp.send_downstream!(memory.u32(0), memory.u32(4), 0)).toBe(Status.ERROR);

    const streaming = guest();
    streaming.resp.new!(0);
    streaming.body.new!(4);
    const [chunk, chunkLen] = streaming.put("chunk");
    const stream = streaming.memory.u32(4);
    expect(streaming.resp.send_downstream!(streaming.memory.u32(0), stream, 1)).toBe(Status.OK);
    expect(streaming.body.write!(stream, chunk, chunkLen, 0, 8)).toBe(Status.OK);
    expect(streaming.body.close!(stream)).toBe(Status.OK);
    expect(streaming.events()).toEqual([
      { event: "response", status: 200, headers: [] },
      { event: "chunk", data: new TextEncoder().encode("chunk") },
      { event: "end", complete: true },
    ]);
  });

  it("backend requests only go to declared backends", () => {
    const { memory, req, body, put } = guest();
    req.new!(0);
    body.new!(4);
    const [name, nameLen] = put("undeclared");
    expect(req.send_async!(memory.u32(0), memory.u32(4), name, nameLen, 8)).toBe(Status.INVAL);
  });

  it("config and secret stores: values, NONE when absent, BUFLEN with the size needed", () => {
    const { ctx, memory, put, read } = guest();
    const configStore = configStoreModule(ctx);
    const secretStore = secretStoreModule(ctx);
    const [missing, missingLen] = put("missing");
    expect(configStore.open!(missing, missingLen, 0)).toBe(Status.BADF);
    const [settings, settingsLen] = put("settings");
    expect(configStore.open!(settings, settingsLen, 0)).toBe(Status.OK);
    const [key, keyLen] = put("KEY");
    expect(configStore.get!(memory.u32(0), key, keyLen, 100, 3, 8)).toBe(Status.BUFLEN);
    expect(memory.u32(8)).toBe("a-value".length);
    expect(configStore.get!(memory.u32(0), key, keyLen, 100, 64, 8)).toBe(Status.OK);
    expect(read(100, memory.u32(8))).toBe("a-value");
    expect(configStore.get!(memory.u32(0), missing, missingLen, 100, 64, 8)).toBe(Status.NONE);
    expect(secretStore.open!(missing, missingLen, 0)).toBe(Status.NONE);
    const [secrets, secretsLen] = put("secrets");
    expect(secretStore.open!(secrets, secretsLen, 0)).toBe(Status.OK);
    const [token, tokenLen] = put("TOKEN");
    expect(secretStore.get!(memory.u32(0), token, tokenLen, 4)).toBe(Status.OK);
    expect(secretStore.plaintext!(memory.u32(4), 100, 64, 8)).toBe(Status.OK);
    expect(read(100, memory.u32(8))).toBe("s3cret");
    expect(secretStore.get!(memory.u32(0), missing, missingLen, 4)).toBe(Status.NONE);
  });

  it("KV: unknown stores and keys Fastly refuses are INVAL before anything is stored", () => {
    const { ctx, memory, put } = guest();
    const kv = kvStoreModule(ctx);
    const [unknown, unknownLen] = put("nope");
    expect(kv.open!(unknown, unknownLen, 0)).toBe(Status.INVAL);
    const [cache, cacheLen] = put("cache");
    expect(kv.open!(cache, cacheLen, 0)).toBe(Status.OK);
    const [badKey, badKeyLen] = put("a#b");
    expect(kv.lookup!(memory.u32(0), badKey, badKeyLen, 0, 0, 4)).toBe(Status.INVAL);
    expect(kv.delete!(memory.u32(0), badKey, badKeyLen, 0, 0, 4)).toBe(Status.INVAL);
  });

  it("select: bodies are ready at once; waiting on nothing forever is INVAL", () => {
    const { ctx, memory } = guest();
    const asyncIo = asyncIoModule(ctx);
    memory.setU32(0, ctx.downstream.body);
    expect(asyncIo.select!(0, 1, 0, 8)).toBe(Status.OK);
    expect(memory.u32(8)).toBe(0);
    expect(asyncIo.is_ready!(ctx.downstream.body, 8)).toBe(Status.OK);
    expect(memory.u32(8)).toBe(1);
    expect(asyncIo.select!(0, 0, 0, 8)).toBe(Status.INVAL);
    expect(asyncIo.is_ready!(ctx.downstream.request, 8)).toBe(Status.BADF);
  });
});
