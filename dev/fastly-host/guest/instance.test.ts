import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { HostLink, type GuestEvent } from "../rpc.ts";
import { runGuest } from "./instance.ts";

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

function run(module: WebAssembly.Module) {
  const { port1, port2 } = new MessageChannel();
  const link = new HostLink(port2, new Int32Array(new SharedArrayBuffer(4)));
  const config = { backends: {}, kvStores: {}, configStores: {}, secretStores: {} };
  const request = { method: "GET", url: "http://localhost/", headers: [], body: new Uint8Array() };
  const outcome = runGuest(module, config, link, request);
  const events: GuestEvent[] = [];
  for (let m = receiveMessageOnPort(port1); m; m = receiveMessageOnPort(port1)) events.push(m.message as GuestEvent);
  port1.close();
  return { outcome, events };
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
});
