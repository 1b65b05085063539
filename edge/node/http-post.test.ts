import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatabaseOutcomeUnknownError, DatabaseUnavailableError } from "../../core/ports/sql.ts";
import { sqlContract } from "../../test/ports/sql-contract.ts";
import { describeOnBackends } from "../../test/support/harness.ts";
import { createNeonSql } from "../neon/neon-sql.ts";
import { postOverNodeHttp } from "./http-post.ts";

const postText = async (url: string, headers: Record<string, string>, body: string, signal?: AbortSignal) => {
  const answer = await postOverNodeHttp(url, { headers, body, signal });
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

  it("rejects with the socket's code when nothing listens, and with an AbortError when its signal fires", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(postText(`http://127.0.0.1:${port}/sql`, {}, "{}")).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await expect(postText(`${url}/slow`, {}, "{}", AbortSignal.timeout(50))).rejects.toMatchObject({
      name: "AbortError",
    });
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
