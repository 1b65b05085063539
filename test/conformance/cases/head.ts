// HEAD, which every path serving GET allows (its 405s say so): the status and header fields GET
// would answer, without a body (RFC 9110 §9.3.2), counted as a read.
import { describe, expect, it } from "vitest";
import { type Answer, type Call, expectStatus, freshTenant, unique } from "../client.ts";

/** A HEAD answer as GET's would be: this status, no body. */
function expectHead(answer: Answer, status: number) {
  expectStatus(answer, status);
  expect(answer.text).toBe("");
}

export function headCases(call: Call) {
  describe("HEAD", () => {
    const as = { sub: "alice", tid: freshTenant() };

    it("answers an asset as GET does, without a body: its ETag, 304 on If-None-Match, 404 elsewhere", async () => {
      const created = await call("POST", "/v1/assets", { as, body: { name: "Chair", material: "oak" } });
      expectStatus(created, 201);
      const path = `/v1/assets/${created.json.id}`;
      const etag = created.headers.get("etag")!;
      const head = await call("HEAD", path, { as });
      expectHead(head, 200);
      expect(head.headers.get("etag")).toBe(etag);
      expect(head.headers.get("content-type")).toMatch(/^application\/json/);
      expectHead(await call("HEAD", path, { as, headers: { "if-none-match": etag } }), 304);
      expectHead(await call("HEAD", path, { as: { ...as, tid: freshTenant() } }), 404);
      expectHead(await call("HEAD", path, { as: null }), 401);
    });

    it("answers a link's lookup with its X-Link-Source, and the public paths without a token", async () => {
      const path = `/v1/links/github/${unique("head")}`;
      expectStatus(await call("PUT", path, { as }), 201);
      const head = await call("HEAD", path, { as });
      expectHead(head, 200);
      expect(head.headers.get("x-link-source")).toBe("kv");
      for (const open of ["/healthz", "/readyz", "/openapi.json"])
        expectHead(await call("HEAD", open, { as: null }), 200);
    });

    it("counts as a read: its answer announces the caller's read quota", async () => {
      const head = await call("HEAD", "/v1/documents", { as });
      expectHead(head, 200);
      expect(head.headers.get("ratelimit-policy")).toMatch(/^"caller-reads";/);
    });
  });
}
