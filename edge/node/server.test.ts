// The Node server's limits, over raw sockets: what a slow, idle or crowding client is answered.
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { unrecognizedMethod } from "../../core/http/methods.ts";
import { expectNoResetOnStop } from "../../test/deploy/stop-under-load.ts";
import { DEFAULT_SERVER_LIMITS, listen, type RunningServer } from "./server.ts";

const LIMITS = { headersTimeoutMs: 300, requestTimeoutMs: 800, keepAliveTimeoutMs: 200, maxConnections: 2 };

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(overrides = LIMITS) {
  // Reads the whole body first, as the app's routes do.
  server = await listen(async (request) => new Response(await request.text()), { port: 0, ...overrides });
  return new URL(server.url);
}

/** A socket that collects what it receives; `closed` settles when the server ends it. */
async function open(url: URL) {
  const socket: Socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve) => socket.once("connect", resolve));
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk.toString();
  });
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now())));
  socket.on("error", () => {});
  return { socket, closed, received: () => received };
}

const GET = "GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n";

describe("the Node server's limits", () => {
  it("states a bound for each of them", () => {
    expect(DEFAULT_SERVER_LIMITS).toEqual({
      maxHeaderBytes: 16 * 1024,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1_000,
      idleTimeoutMs: 60_000,
    });
  });

  it.each([
    ["a header section", "GET /healthz HTTP/1.1\r\nhost: x\r\n", LIMITS.headersTimeoutMs],
    ["a body", "POST /v1/documents HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{", LIMITS.requestTimeoutMs],
  ])("%s that does not arrive in time: 408 request_timeout, connection closed", async (_, partial, timeoutMs) => {
    const client = await open(await start());
    const sent = Date.now();
    client.socket.write(partial);
    const closedAt = await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(client.received()).toContain('"code":"request_timeout"');
    expect(closedAt - sent).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(closedAt - sent).toBeLessThan(5_000);
  });

  it("an idle keep-alive connection is closed after the keep-alive timeout", async () => {
    const client = await open(await start());
    client.socket.write(GET);
    const answeredAt = await new Promise<number>((resolve) => client.socket.once("data", () => resolve(Date.now())));
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    const closedAt = await client.closed;
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(LIMITS.keepAliveTimeoutMs - 50);
    expect(closedAt - answeredAt).toBeLessThan(3_000);
  });

  it("connections beyond the cap are closed unanswered; those within it are served", async () => {
    const url = await start({ ...LIMITS, headersTimeoutMs: 5_000, requestTimeoutMs: 10_000 });
    const held = [await open(url), await open(url)];
    const extra = await open(url);
    extra.socket.write(GET);
    await extra.closed;
    expect(extra.received()).toBe("");
    for (const client of held) {
      client.socket.write(GET);
      await new Promise((resolve) => client.socket.once("data", resolve));
      expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
      client.socket.destroy();
    }
  });
});

describe("a client that reads none of its answers", () => {
  const IDLE = { ...LIMITS, idleTimeoutMs: 300 };
  /** More than the kernel's buffers hold of an answer nobody reads. */
  const BIG = 16 * 1024 * 1024;

  /** A connection that sends `requests` and reads nothing for 1.5 s, then all it gets until it is closed. */
  async function readLate(requests: string, meanwhile = (_socket: Socket) => {}) {
    const body = "x".repeat(BIG);
    server = await listen(async () => new Response(body), { port: 0, ...IDLE });
    const client = await open(new URL(server.url));
    client.socket.pause();
    client.socket.write(requests);
    const sending = setInterval(() => meanwhile(client.socket), 50);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    clearInterval(sending);
    client.socket.resume();
    await client.closed;
    return client.received();
  }

  it("has its connection closed, the answer cut off, once nothing moved on it for the idle timeout", async () => {
    const received = await readLate(GET);
    expect(received.length).toBeLessThan(BIG);
  });

  it("has its connection closed when a refusal waits that long behind them, whatever it sends meanwhile", async () => {
    // Node reads on (and discards) what follows a refused request: each byte resets the idle timeout.
    const received = await readLate(`${GET}BREW / HTTP/1.1\r\n\r\n`, (socket) => socket.write("x"));
    // Cut off (a reset may take what was already received with it), never followed by the refusal.
    expect(received.length).toBeLessThan(BIG);
    expect(received).not.toContain("not_implemented");
  });
});

describe("a stop", () => {
  it("answers the next request of a kept-alive connection with Connection: close, then closes it", async () => {
    const url = await start({ ...LIMITS, keepAliveTimeoutMs: 5_000 });
    const client = await open(url);
    client.socket.write(GET);
    await expect.poll(() => client.received()).toContain("\r\n\r\n");
    const stopped = server!.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(client.socket.destroyed, "an idle kept-alive connection stays open").toBe(false);
    client.socket.write(GET);
    const closedAt = await client.closed;
    const answers = client.received().split("HTTP/1.1 200").length - 1;
    expect(answers).toBe(2);
    expect(client.received().toLowerCase()).toMatch(/connection: close\r\n[\s\S]*$/);
    await stopped;
    expect(Date.now() - closedAt).toBeLessThan(1_000);
  });

  it("ten stops under a stream on kept-alive connections reset nothing", async () => {
    await expectNoResetOnStop(async () => {
      const running = await listen(async (request) => new Response(await request.text(), { status: 201 }), {
        port: 0,
      });
      return { url: running.url, stop: () => running.close().then(() => 0) };
    });
  });
});

describe("an Expect other than 100-continue", () => {
  // RFC 9110 §10.1.1 lets a server answer 417 or serve the request; workerd and Deno serve it, and
  // Node's own 417 would be the one answer of its server that is no problem.
  it("is served like any request", async () => {
    const url = await start();
    const client = await open(url);
    client.socket.write(
      "POST /echo HTTP/1.1\r\nhost: x\r\nexpect: something\r\ncontent-length: 2\r\nconnection: close\r\n\r\nhi",
    );
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nhi$/);
  });
});

describe("a request Node's parser refuses after one still being answered", () => {
  // RFC 9112 §9.3.2: answers go out in the order of their requests. A refusal written at once would
  // reach the client as the answer to the request before it, whose own answer (a write that was
  // made, say) would then never arrive.
  it("is refused after that answer, on the same connection, which then closes", async () => {
    server = await listen(
      async (request) => {
        const body = await request.text();
        await new Promise((resolve) => setTimeout(resolve, 200));
        return new Response(`made ${body}`, { status: 201 });
      },
      { port: 0, ...LIMITS },
    );
    const client = await open(new URL(server.url));
    // A body longer than its Content-Length: what follows it is read as the next request.
    client.socket.write("POST /documents HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\nhiBREW / HTTP/1.1\r\n\r\n");
    await client.closed;
    const answers = client.received().split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((answer) => answer.slice(0, 12))).toEqual(["HTTP/1.1 201", "HTTP/1.1 501"]);
    expect(answers[0]).toMatch(/\r\n\r\nmade hi$/);
    expect(answers[1]).toMatch(/"code":"not_implemented"/);
    // Worded as the app words a method it does not recognize, which Deno and Compute hand it.
    expect(answers[1]).toContain(`"detail":${JSON.stringify(unrecognizedMethod().detail)}`);
  });

  it("a request refused for itself (its body malformed) is answered at once, its handler still reading", async () => {
    server = await listen(async (request) => new Response(await request.text()), { port: 0, ...LIMITS });
    const client = await open(new URL(server.url));
    client.socket.write("POST /x HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n");
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 400 [\s\S]*"code":"malformed_request"/);
  });
});
