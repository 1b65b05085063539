// If-Match and If-None-Match on resources without an ETag (RFC 9110 §13.1.1-2): documents and
// links. `*` asks whether the resource exists; a listed tag can never be theirs.
import { describe, expect, it } from "vitest";
import { type Call, expectProblem, expectStatus, freshTenant, unique } from "../client.ts";

const ifMatch = (value: string) => ({ "if-match": value });
const ifNoneMatch = (value: string) => ({ "if-none-match": value });

export function unversionedPreconditionCases(call: Call) {
  describe("preconditions without ETags: documents", () => {
    const newTenant = () => ({ sub: "alice", tid: freshTenant() });
    const post = (as: object, headers: Record<string, string> = {}) =>
      call("POST", "/v1/documents", { as, body: { contractId: "c" }, headers });

    it("POST: If-Match with a tag or If-None-Match: * is 412 and numbers nothing; If-Match: * or a listed If-None-Match creates", async () => {
      const as = newTenant();
      for (const refused of [ifMatch('"x"'), ifMatch('W/"x", "y"'), ifNoneMatch("*")]) {
        expectProblem(await post(as, refused), 412, "precondition_failed");
      }
      expect((await post(as, ifMatch("*"))).json.docNumber).toBe(1);
      expect((await post(as, ifNoneMatch('"x"'))).json.docNumber).toBe(2);
      expect((await call("GET", "/v1/documents", { as })).json.items).toHaveLength(2);
    });

    it("POST: the condition is judged before the Idempotency-Key, whose refused use stores nothing", async () => {
      const as = newTenant();
      const key = { "idempotency-key": unique("key") };
      expectProblem(await post(as, { ...key, ...ifMatch('"x"') }), 412, "precondition_failed");
      const first = await post(as, key);
      expectStatus(first, 201);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      expectProblem(await post(as, { ...key, ...ifNoneMatch("*") }), 412, "precondition_failed");
      const replay = await post(as, { ...key, ...ifMatch("*") });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.json).toEqual(first.json);
      expect((await post(as)).json.docNumber).toBe(2);
    });

    it("GET and HEAD of a document or the list: If-None-Match: * is 304, If-Match with a tag 412; a missing document 404 first", async () => {
      const as = newTenant();
      expectStatus(await post(as), 201);
      for (const method of ["GET", "HEAD"]) {
        for (const path of ["/v1/documents/1", "/v1/documents"]) {
          const notModified = await call(method, path, { as, headers: ifNoneMatch("*") });
          expectStatus(notModified, 304);
          expect(notModified.text).toBe("");
          expectStatus(await call(method, path, { as, headers: ifNoneMatch('"x"') }), 200);
          expectStatus(await call(method, path, { as, headers: ifMatch("*") }), 200);
          expectStatus(await call(method, path, { as, headers: ifMatch('"x"') }), 412);
        }
        for (const headers of [ifMatch('"x"'), ifNoneMatch("*")]) {
          expectStatus(await call(method, "/v1/documents/2", { as, headers }), 404);
        }
      }
      expectProblem(await call("GET", "/v1/documents/1", { as, headers: ifMatch("x") }), 400, "malformed_request");
    });
  });
}
