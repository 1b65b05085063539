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

export function linkPreconditionCases(call: Call) {
  describe("preconditions without ETags: links", () => {
    const tid = freshTenant();
    const newUser = () => ({ sub: unique("user"), tid });
    const newPath = () => `/v1/links/github/${unique("gh")}`;
    const put = (as: object, path: string, displayName: string, headers: Record<string, string> = {}) =>
      call("PUT", path, { as, body: { displayName }, headers });
    const nameOf = async (as: object, path: string) =>
      (await call("GET", `${path}?consistency=strong`, { as })).json.displayName;

    it("PUT with If-None-Match: * links only an account not linked yet: the caller's own is 412, unchanged", async () => {
      const [owner, other] = [newUser(), newUser()];
      const path = newPath();
      expectStatus(await put(owner, path, "First", ifNoneMatch("*")), 201);
      expectProblem(await put(owner, path, "Second", ifNoneMatch("*")), 412, "precondition_failed");
      expect(await nameOf(owner, path)).toBe("First");
      expectProblem(await put(other, path, "Theirs", ifNoneMatch("*")), 409, "external_account_already_linked");
      // A listed tag can never be a link's ETag (it has none): the condition holds.
      expect((await put(owner, path, "Third", ifNoneMatch('"x"'))).json.displayName).toBe("Third");
    });

    it("PUT with If-Match changes the caller's link only: `*` 200, a tag 412, none 404 (nothing linked), another's 409", async () => {
      const [owner, other] = [newUser(), newUser()];
      const path = newPath();
      expectStatus(await put(owner, path, "First"), 201);
      expectProblem(await put(owner, path, "Tagged", ifMatch('"x"')), 412, "precondition_failed");
      expect(await nameOf(owner, path)).toBe("First");
      const changed = await put(owner, path, "Second", ifMatch("*"));
      expectStatus(changed, 200);
      expect(changed.json.displayName).toBe("Second");
      expect(await nameOf(owner, path)).toBe("Second");
      for (const value of ["*", '"x"']) {
        expectProblem(await put(other, path, "Theirs", ifMatch(value)), 409, "external_account_already_linked");
        const absent = newPath();
        expectProblem(await put(owner, absent, "New", ifMatch(value)), 404, "not_found");
        expectProblem(await call("GET", absent, { as: owner }), 404, "not_found");
      }
      const both = { ...ifMatch("*"), ...ifNoneMatch("*") };
      expectProblem(await put(owner, path, "Both", both), 400, "malformed_request");
    });

    it("DELETE: If-Match with a tag or If-None-Match: * is 412 on the caller's link, which stays; 404 on none", async () => {
      const [owner, other] = [newUser(), newUser()];
      const path = newPath();
      expectStatus(await put(owner, path, "Kept"), 201);
      for (const headers of [ifMatch('"x"'), ifNoneMatch("*")]) {
        expectProblem(await call("DELETE", path, { as: owner, headers }), 412, "precondition_failed");
        expectProblem(await call("DELETE", path, { as: other, headers }), 404, "not_found");
        expectProblem(await call("DELETE", newPath(), { as: owner, headers }), 404, "not_found");
      }
      expect(await nameOf(owner, path)).toBe("Kept");
      expectStatus(await call("DELETE", path, { as: owner, headers: ifMatch("*") }), 204);
      expectProblem(await call("DELETE", path, { as: owner, headers: ifMatch("*") }), 404, "not_found");
    });

    it("GET of a link (from KV or Postgres) and of /v1/me/links: If-None-Match: * is 304, If-Match with a tag 412", async () => {
      const [owner, other] = [newUser(), newUser()];
      const path = newPath();
      expectStatus(await put(owner, path, "Read"), 201);
      for (const target of [path, `${path}?consistency=strong`, "/v1/me/links"]) {
        const notModified = await call("GET", target, { as: owner, headers: ifNoneMatch("*") });
        expectStatus(notModified, 304);
        expect(notModified.text).toBe("");
        expectStatus(await call("GET", target, { as: owner, headers: ifNoneMatch('"x"') }), 200);
        expectStatus(await call("GET", target, { as: owner, headers: ifMatch("*") }), 200);
        expectProblem(await call("GET", target, { as: owner, headers: ifMatch('"x"') }), 412, "precondition_failed");
      }
      // Another user's link is none of theirs: 404 whatever the condition.
      for (const headers of [ifMatch('"x"'), ifNoneMatch("*")]) {
        expectProblem(await call("GET", path, { as: other, headers }), 404, "not_found");
      }
    });
  });
}
