import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DatabaseOutcomeUnknownError, DatabaseUnavailableError } from "../../core/ports/sql.ts";
import { sqlContract } from "../../test/ports/sql-contract.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { createNeonSql } from "../neon/neon-sql.ts";
import { postOverNodeHttp } from "./http-post.ts";

const postText = async (url: string, headers: Record<string, string>, body: string, timeoutMs = 5_000) => {
  const answer = await postOverNodeHttp(url, { headers, body, timeoutMs });
  return { status: answer.status, text: await answer.text() };
};

describe("postOverNodeHttp (Node's transport for Neon's SQL requests)", () => {
  let server: Server;
  let url: string;
  const connections = new Set<unknown>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        if (req.url === "/slow") return void setTimeout(() => res.end("late"), 2_000);
        res.writeHead(req.url === "/refuse" ? 503 : 200, { "content-type": "application/json" });
        res.end(JSON.stringify({ method: req.method, header: req.headers["neon-array-mode"], body }));
      });
    });
    server.on("connection", (socket) => connections.add(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("posts the body with the headers and answers the status and the whole text", async () => {
    const answer = await postText(`${url}/sql`, { "Neon-Array-Mode": "true" }, '{"query":"SELECT 1"}');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ method: "POST", header: "true", body: '{"query":"SELECT 1"}' });
    expect((await postText(`${url}/refuse`, {}, "{}")).status).toBe(503);
  });

  it("keeps its connection alive from one request to the next", async () => {
    const before = connections.size;
    for (let i = 0; i < 5; i++) await postText(`${url}/sql`, {}, String(i));
    expect(connections.size - before).toBeLessThanOrEqual(1);
  });

  it("rejects with the socket's code when nothing listens, and with a TimeoutError past its deadline", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(postText(`http://127.0.0.1:${port}/sql`, {}, "{}")).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await expect(postText(`${url}/slow`, {}, "{}", 50)).rejects.toMatchObject({ name: "TimeoutError" });
  });
});

describe("plain http: answers framed every way a server may frame them", () => {
  const opened: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((close) => close()));
  });

  /** A server writing `answer` raw for every request, after which it closes when `close`. */
  async function rawServer(answer: string, close = false) {
    const sockets = new Set<Socket>();
    const server = createNetServer((socket) => {
      sockets.add(socket);
      socket.on("data", () => (close ? socket.end(answer) : socket.write(answer)));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const dropIdle = () => {
      for (const socket of sockets) socket.destroy();
    };
    opened.push(() => {
      dropIdle();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sql`, sockets, dropIdle };
  }

  it("reads an answer without a length to the end of the connection, and does not reuse it", async () => {
    const server = await rawServer("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end", true);
    expect(await postText(server.url, {}, "{}")).toEqual({ status: 200, text: "until the end" });
    expect(await postText(server.url, {}, "{}")).toEqual({ status: 200, text: "until the end" });
    expect(server.sockets.size).toBe(2);
  });

  it("skips a 100 Continue, and opens a new connection when the server dropped the idle one", async () => {
    const server = await rawServer("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    expect(await postText(server.url, {}, "{}")).toEqual({ status: 200, text: "ok" });
    server.dropIdle();
    await new Promise((done) => setTimeout(done, 50));
    expect(await postText(server.url, {}, "{}")).toEqual({ status: 200, text: "ok" });
    expect(server.sockets.size).toBe(2);
  });

  it("does not reuse a connection that answered one request twice", async () => {
    const twice = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    const server = await rawServer(twice + twice);
    expect(await postText(server.url, {}, "{}")).toEqual({ status: 200, text: "ok" });
    expect(await postText(server.url, {}, "{}")).toEqual({ status: 200, text: "ok" });
    expect(server.sockets.size).toBe(2);
  });

  it("rejects an answer it cannot parse, and one cut off before its end (ECONNRESET)", async () => {
    const garbage = await rawServer("NOT HTTP\r\n\r\n");
    const cut = await rawServer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", true);
    await expect(postText(garbage.url, {}, "{}")).rejects.toThrow();
    await expect(postText(cut.url, {}, "{}")).rejects.toMatchObject({ code: "ECONNRESET" });
  });
});

describeOnBackends(
  "SQL port over Node's transport",
  (harness) => {
    for (const [name, run] of sqlContract) it(`contract: ${name}`, () => run(harness().sql));
  },
  { post: postOverNodeHttp },
);

describe("the SQL port's refusals over Node's transport", () => {
  it("answers unavailable when nothing listens, outcome unknown when the answer never comes", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = createNeonSql({
      databaseUrl: `postgres://u:p@127.0.0.1:${port}/db`,
      fetchEndpoint: `http://127.0.0.1:${port}/sql`,
      post: postOverNodeHttp,
    });
    await expect(refused.query("SELECT 1")).rejects.toBeInstanceOf(DatabaseUnavailableError);

    const silent = createServer(() => {}); // reads the request, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const silentPort = (silent.address() as AddressInfo).port;
    const unanswered = createNeonSql({
      databaseUrl: `postgres://u:p@127.0.0.1:${silentPort}/db`,
      fetchEndpoint: `http://127.0.0.1:${silentPort}/sql`,
      post: postOverNodeHttp,
      timeoutMs: 100,
    });
    await expect(unanswered.query("SELECT 1")).rejects.toBeInstanceOf(DatabaseOutcomeUnknownError);
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
});
