import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleOneAtATime, viceroyTable } from "./viceroy.ts";

describe("the Viceroy part of the KV-hit profile", () => {
  let server: Server;
  let url: string;
  const seen: (string | undefined)[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push(request.headers.authorization);
      if (request.url === "/fails") return response.writeHead(500).end();
      response.writeHead(200, { "server-timing": 'kv;dur=0.2;desc="KV store",total;dur=1.5;desc="total"' }).end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("times each answer, with the headers given, and reads the app's total from Server-Timing", async () => {
    const sampled = await sampleOneAtATime("KV hit", `${url}/hit`, { authorization: "Bearer t" }, 5);
    expect(sampled.name).toBe("KV hit");
    expect(sampled.clientMs).toHaveLength(5);
    expect(sampled.clientMs.every((ms) => ms > 0)).toBe(true);
    expect(sampled.totalMs).toEqual([1.5, 1.5, 1.5, 1.5, 1.5]);
    expect(seen.slice(-5)).toEqual(Array(5).fill("Bearer t"));
  });

  it("stops at an answer that is not a success, naming the server", async () => {
    await expect(sampleOneAtATime("bare KV get", `${url}/fails`, {}, 3)).rejects.toThrow("bare KV get: HTTP 500");
  });

  it("tabulates each server's p50 and p90, and the app's total where the answers carry one", () => {
    const clientMs = Array.from({ length: 10 }, (_, i) => i + 1);
    expect(
      viceroyTable([
        { name: "bare KV get", clientMs, totalMs: [] },
        { name: "KV hit", clientMs: clientMs.map((ms) => ms * 4), totalMs: [2, 3, 2.5] },
      ]),
    ).toBe(
      [
        "| fastly-viceroy, one at a time | p50 ms | p90 ms | app `total` p50 ms |",
        "| --- | ---: | ---: | ---: |",
        "| bare KV get | 5.00 | 9.00 |  |",
        "| KV hit | 20.00 | 36.00 | 2.50 |",
      ].join("\n"),
    );
  });
});
