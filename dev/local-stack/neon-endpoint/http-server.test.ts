// The endpoint's HTTP server (node:http): whole bodies handed over, bounded; a client going away
// aborts its request; a stop answers what is in flight.
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type EndpointHandler, type EndpointRequest, type EndpointServer, listenHttp } from "./http-server.ts";

const servers: EndpointServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const echo: EndpointHandler = async (req) => ({
  status: 200,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: req.body?.toString() ?? null }),
});

async function start(handler: EndpointHandler = echo, maxBodyBytes = 1024): Promise<EndpointServer> {
  const server = await listenHttp(handler, { host: "127.0.0.1", port: 0, maxBodyBytes, keepAliveMs: 65_000 });
  servers.push(server);
  return server;
}

const post = (port: number, body: string, headers: Record<string, string> = {}) =>
  fetch(`http://127.0.0.1:${port}/sql?x=1`, { method: "POST", body, headers });

describe("the endpoint's HTTP server", () => {
  it("hands over the whole body, the target and lower-case headers", async () => {
    const { port } = await start();
    const answer = await post(port, '{"a":"é"}', { "Neon-Array-Mode": "true" });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      method: "POST",
      url: "/sql?x=1",
      body: '{"a":"é"}',
      headers: { "neon-array-mode": "true" },
    });
  });

  it("hands over no body past the limit (drained, not kept) and keeps serving", async () => {
    const seen: (string | undefined)[] = [];
    const { port } = await start(async (req) => {
      seen.push(req.body?.toString());
      return { status: req.body ? 200 : 413 };
    }, 8);
    expect((await post(port, "x".repeat(20))).status).toBe(413);
    expect((await post(port, "ok")).status).toBe(200);
    expect(seen).toEqual([undefined, "ok"]);
  });

  it("aborts the signal of a request whose client went away", async () => {
    let request: EndpointRequest | undefined;
    const { port } = await start(
      (req) =>
        new Promise((done) => {
          request = req;
          req.signal.addEventListener("abort", () => done({ status: 200 }));
        }),
    );
    const socket = connect(port, "127.0.0.1");
    socket.write("POST /sql HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
    await expect.poll(() => request).toBeDefined();
    expect(request?.signal.aborted).toBe(false);
    socket.destroy();
    await expect.poll(() => request?.signal.aborted).toBe(true);
  });

  it("stops: a request in flight is answered first, and its connection then closes", async () => {
    let release: () => void = () => {};
    const server = await listenHttp(
      (req) => new Promise((done) => (release = () => done({ status: 200, body: req.url }))),
      {
        host: "127.0.0.1",
        port: 0,
        maxBodyBytes: 1024,
        keepAliveMs: 65_000,
      },
    );
    const inFlight = post(server.port, "{}");
    await new Promise((done) => setTimeout(done, 50));
    const stopped = server.close();
    release();
    const answer = await inFlight;
    expect(answer.headers.get("connection")).toBe("close");
    expect(await answer.text()).toBe("/sql?x=1");
    await stopped;
  });
});
