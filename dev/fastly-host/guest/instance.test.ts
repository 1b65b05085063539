import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { imageModule } from "../memory-image.ts";
import { type GuestEvent, HostLink } from "../rpc.ts";
import { GuestFactory, runGuest } from "./instance.ts";

// Services assembled by hand, so the test controls exactly which host calls a guest makes.

const section = (id: number, bytes: number[]) => [id, bytes.length, ...bytes];
const name = (text: string) => [text.length, ...Buffer.from(text)];
const I32 = 0x7f;

/** A guest whose `_start` calls one imported function with `arity` zero arguments. */
function guestCalling(module: string, field: string, arity: number): WebAssembly.Module {
  const body = [0x00, ...Array.from({ length: arity }, () => [0x41, 0x00]).flat(), 0x10, 0x00, 0x1a, 0x0b];
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [0x02, 0x60, arity, ...Array(arity).fill(I32), 0x01, I32, 0x60, 0x00, 0x00]),
    ...section(2, [0x01, ...name(module), ...name(field), 0x00, 0x00]),
    ...section(3, [0x01, 0x01]),
    ...section(5, [0x01, 0x00, 0x01]),
    ...section(7, [0x02, ...name("memory"), 0x02, 0x00, ...name("_start"), 0x00, 0x01]),
    ...section(10, [0x01, body.length, ...body]),
  ];
  return new WebAssembly.Module(new Uint8Array(bytes));
}

/** A guest with js-compute's shape: memory with a data segment, a mutable global, `_start` = `body`. */
function guestModule(body: number[], { startsOnInstantiation = false } = {}): Uint8Array<ArrayBuffer> {
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [0x02, 0x60, 0x01, I32, 0x01, I32, 0x60, 0x00, 0x00]),
    ...section(2, [0x01, ...name("fastly_http_body"), ...name("new"), 0x00, 0x00]),
    ...section(3, [0x01, 0x01]),
    ...section(5, [0x01, 0x00, 0x01]),
    ...section(6, [0x01, I32, 0x01, 0x41, 0x00, 0x0b]),
    ...section(7, [0x02, ...name("memory"), 0x02, 0x00, ...name("_start"), 0x00, 0x01]),
    ...(startsOnInstantiation ? section(8, [0x01]) : []),
    ...section(10, [0x01, body.length, ...body]),
    ...section(11, [0x01, 0x00, 0x41, 0x08, 0x0b, 0x01, 0x07]),
  ]);
}

/**
 * A guest with state, as js-compute's are: a data segment puts 7 at address 8, a mutable global
 * starts at 0. `_start` adds 1 to both and traps unless they are then 8 and 1, so it only ever
 * runs cleanly in an instance in its initial state.
 */
function guestWithState(): Uint8Array<ArrayBuffer> {
  const add1 = [0x41, 0x01, 0x6a];
  const trapUnless = (value: number) => [0x41, value, 0x47, 0x04, 0x40, 0x00, 0x0b];
  return guestModule([
    0x00,
    ...[0x41, 0x08, 0x41, 0x08, 0x2d, 0x00, 0x00, ...add1, 0x3a, 0x00, 0x00], // mem[8] += 1
    ...[0x23, 0x00, ...add1, 0x24, 0x00], // global += 1
    ...[0x41, 0x08, 0x2d, 0x00, 0x00, ...trapUnless(8)],
    ...[0x23, 0x00, ...trapUnless(1)],
    0x0b,
  ]);
}

/** A guest whose instantiation traps: its start function is `unreachable`. */
const guestThatCannotStart = () => guestModule([0x00, 0x00, 0x0b], { startsOnInstantiation: true });

const config = { backends: {}, kvStores: {}, configStores: {}, secretStores: {} };
const request = {
  method: "GET",
  url: "http://localhost/",
  headers: [],
  body: new Uint8Array(),
  clientAddress: "127.0.0.1",
};

/** A link to a main thread that is never asked: what the guest sends stays on `port` until read. */
function unansweredLink() {
  const { port1, port2 } = new MessageChannel();
  const link = new HostLink(port2, new Int32Array(new SharedArrayBuffer(4)));
  const events = () => {
    const received: GuestEvent[] = [];
    for (let m = receiveMessageOnPort(port1); m; m = receiveMessageOnPort(port1))
      received.push(m.message as GuestEvent);
    port1.close();
    return received;
  };
  return { link, events };
}

function run(module: WebAssembly.Module) {
  const { link, events } = unansweredLink();
  const outcome = runGuest(module, config, link, request);
  return { outcome, events: events() };
}

describe("a guest instance", () => {
  it("a host call this host does not implement fails loudly, naming the call, and the client gets a 500", () => {
    const { outcome, events } = run(guestCalling("fastly_geo", "lookup", 5));
    expect(outcome.error).toMatch(/unimplemented host call fastly_geo\.lookup/);
    const response = events.find((e) => e.event === "response");
    expect(response).toMatchObject({ status: 500 });
    expect(new TextDecoder().decode((response as { body: Uint8Array }).body)).toMatch(/fastly_geo\.lookup/);
  });

  it("a guest that ends without responding gets the client a 500 saying so", () => {
    const { outcome, events } = run(guestCalling("fastly_http_body", "new", 1));
    expect(outcome).toEqual({ exitCode: 0, error: undefined });
    const response = events.find((e) => e.event === "response") as { status: number; body: Uint8Array };
    expect(response.status).toBe(500);
    expect(new TextDecoder().decode(response.body)).toMatch(/without sending a response/);
  });

  it("each request of a worker finds the instance in its initial state: memory, globals, handles", () => {
    const wasm = guestWithState();
    const imaged = imageModule(wasm);
    expect(imaged?.state).toEqual({ globals: ["fastly_host_state_global_0"] }); // reused, not re-instantiated
    const { link, events } = unansweredLink();
    const factory = new GuestFactory(imaged!, config, link);
    const outcomes = Array.from({ length: 3 }, () => factory.prepare().run(request));
    events();
    // A second run in an instance not put back would find 8 and 1 already there, and trap.
    expect(outcomes).toEqual(Array.from({ length: 3 }, () => ({ exitCode: 0, error: undefined })));
  });

  it("an imaged guest whose instance cannot be made answers each request with a 500 saying why", () => {
    const imaged = imageModule(guestThatCannotStart());
    expect(imaged).toBeDefined();
    const { link, events } = unansweredLink();
    const factory = new GuestFactory(imaged!, config, link);
    const outcomes = Array.from({ length: 2 }, () => factory.prepare().run(request));
    for (const outcome of outcomes) expect(outcome.error).toMatch(/unreachable/);
    const responses = events().filter((e) => e.event === "response") as { status: number; body: Uint8Array }[];
    expect(responses.map((r) => r.status)).toEqual([500, 500]);
    expect(new TextDecoder().decode(responses[0]!.body)).toMatch(/unreachable/);
  });

  it("the same guest traps when it runs twice in one instance, so the test above can fail", () => {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(guestWithState()), {
      fastly_http_body: { new: () => 0 },
    });
    const start = instance.exports._start as () => void;
    start();
    expect(start).toThrow(WebAssembly.RuntimeError);
  });
});
