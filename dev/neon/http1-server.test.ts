// The endpoint's HTTP/1.1 server, spoken to byte by byte: framing, keep-alive, pipelining, limits,
// a client going away, and a stop that answers what is in flight.
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type Http1Handler, type Http1Request, type Http1Server, listenHttp1 } from "./http1-server.ts";

const servers: Http1Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Answers with what it was sent, as JSON. */
const echo: Http1Handler = async (req) => ({
  status: 200,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: req.body?.toString() ?? null }),
});

async function start(handler: Http1Handler = echo, maxBodyBytes = 1024): Promise<Http1Server> {
  const server = await listenHttp1(handler, { host: "127.0.0.1", port: 0, maxBodyBytes, keepAliveMs: 65_000 });
  servers.push(server);
  return server;
}

/** A raw connection: what is written, and everything read until the server closes or `until` matches. */
async function exchange(port: number, bytes: string, until?: RegExp): Promise<{ text: string; closed: boolean }> {
  const socket = connect(port, "127.0.0.1");
  socket.setEncoding("utf8");
  let text = "";
  return new Promise((resolve, reject) => {
    socket.on("data", (chunk) => {
      text += chunk;
      if (until?.test(text)) resolve({ text, closed: false });
    });
    socket.on("close", () => resolve({ text, closed: true }));
    socket.on("error", reject);
    socket.write(bytes);
  }).finally(() => socket.destroy()) as Promise<{ text: string; closed: boolean }>;
}

const post = (body: string, extra = "") =>
  `POST /sql HTTP/1.1\r\nHost: x\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** The JSON bodies of every answer in `text`, in order. */
function bodies(text: string): Record<string, unknown>[] {
  return [...text.matchAll(/\r\n\r\n(\{.*?\})(?=HTTP\/1\.1|$)/gs)].map((match) => JSON.parse(match[1] as string));
}

describe("the endpoint's HTTP/1.1 server", () => {
  it("frames a request by its length and answers with a length, keeping the connection", async () => {
    const { port } = await start();
    const { text, closed } = await exchange(port, post('{"a":"é"}', "Neon-Array-Mode: true\r\n"), /\}$/);
    expect(closed).toBe(false);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\nContent-Length: \d+\r\n/);
    expect(bodies(text)).toEqual([expect.objectContaining({ method: "POST", url: "/sql", body: '{"a":"é"}' })]);
    expect(bodies(text)[0]?.headers).toMatchObject({ "neon-array-mode": "true" });
  });

  it("answers pipelined requests in the order they came, even when the first takes longest", async () => {
    const { port } = await start(async (req) => {
      if (req.body?.toString() === "slow") await new Promise((done) => setTimeout(done, 100));
      return echo(req);
    });
    const { text } = await exchange(port, post("slow") + post("fast") + post("third"), /"third"\}$/);
    expect(bodies(text).map((answer) => answer.body)).toEqual(["slow", "fast", "third"]);
  });

  it("reads a chunked body, answers 100 Continue when asked, and joins repeated headers", async () => {
    const { port } = await start();
    const chunked =
      "POST /sql HTTP/1.1\r\nHost: x\r\nX-A: 1\r\nX-A: 2\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
    const [answer] = bodies((await exchange(port, chunked, /\}$/)).text);
    expect(answer).toMatchObject({ body: "abcde", headers: { "x-a": "1, 2" } });

    const expecting = await exchange(port, post("{}", "Expect: 100-continue\r\n"), /\}$/);
    expect(expecting.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
  });

  it("closes after the answer when the client asks, or speaks HTTP/1.0", async () => {
    const { port } = await start();
    const asked = await exchange(port, post("{}", "Connection: close\r\n"));
    expect(asked.closed).toBe(true);
    expect(asked.text).toMatch(/\r\nConnection: close\r\n/);
    const old = await exchange(port, "POST /sql HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}");
    expect(old.closed).toBe(true);
    expect(bodies(old.text)).toHaveLength(1);
  });

  it("hands over no body past the limit (drained, not kept) and keeps serving the connection", async () => {
    const seen: (string | undefined)[] = [];
    const { port } = await start(async (req) => {
      seen.push(req.body?.toString());
      return { status: req.body ? 200 : 413 };
    }, 8);
    const { text } = await exchange(port, post("x".repeat(20)) + post("ok"), /200 OK[\s\S]*\r\n\r\n$/);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(seen).toEqual([undefined, "ok"]);
  });

  it("takes a pipelined burst larger than the header limit: only one request's headers count", async () => {
    const { port } = await start();
    const burst = Array.from({ length: 600 }, (_, i) => post(`{"n":${i}}`, `X-Pad: ${"p".repeat(40)}\r\n`)).join("");
    expect(burst.length).toBeGreaterThan(32 * 1024);
    const { text } = await exchange(port, burst, /"\{\\"n\\":599\}"/);
    expect(bodies(text)).toHaveLength(600);
    expect(text).not.toMatch(/ 431 /);
  });

  it("answers what cannot be framed with 400, and too many header bytes with 431, then closes", async () => {
    const { port } = await start();
    const garbage = await exchange(port, "HELLO\r\n\r\n");
    expect(garbage).toMatchObject({ closed: true });
    expect(garbage.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*malformed HTTP request/);
    const huge = await exchange(port, `POST /sql HTTP/1.1\r\nX: ${"a".repeat(100_000)}\r\n\r\n`);
    expect(huge.text).toMatch(/^HTTP\/1\.1 431 /);
  });

  it("aborts the signal of a request whose client went away", async () => {
    let request: Http1Request | undefined;
    const { port } = await start(
      (req) =>
        new Promise((done) => {
          request = req;
          req.signal.addEventListener("abort", () => done({ status: 200 }));
        }),
    );
    const socket: Socket = connect(port, "127.0.0.1");
    socket.write(post("{}"));
    await expect.poll(() => request).toBeDefined();
    expect(request?.signal.aborted).toBe(false);
    socket.destroy();
    await expect.poll(() => request?.signal.aborted).toBe(true);
  });

  it("stops: idle connections close at once, a request in flight is answered first", async () => {
    let release: () => void = () => {};
    const server = await listenHttp1(
      (req) => new Promise((done) => (release = () => done({ status: 200, body: req.url }))),
      { host: "127.0.0.1", port: 0, maxBodyBytes: 1024, keepAliveMs: 65_000 },
    );
    const idle = connect(server.port, "127.0.0.1");
    const idleClosed = new Promise((done) => idle.on("close", done));
    await new Promise((done) => idle.on("connect", done));
    const inFlight = exchange(server.port, post("{}"));
    await new Promise((done) => setTimeout(done, 50));
    const stopped = server.close();
    await idleClosed;
    release();
    const { text, closed } = await inFlight;
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n\r\n\/sql$/);
    expect(closed).toBe(true);
    await stopped;
  });
});
