// Documents: gapless per-tenant numbers, Idempotency-Key replays.
import { describe, expect, it } from "vitest";
import { type Call, expectProblem, expectStatus, freshTenant, unique } from "../client.ts";

export function documentCases(call: Call) {
  describe("documents", () => {
    /** Each case numbers in a tenant of its own, so it can expect 1, 2, 3 … */
    const newTenant = () => ({ sub: "alice", tid: freshTenant() });
    const post = (as: object, body: object, headers: Record<string, string> = {}) =>
      call("POST", "/v1/documents", { as, body, headers });

    it("POST creates: 201, Location, the document numbered 1", async () => {
      const as = newTenant();
      const answer = await post(as, { contractId: "c-1", title: "Offer" });
      expectStatus(answer, 201);
      expect(answer.json).toEqual({
        id: expect.any(String),
        tenantId: as.tid,
        docNumber: 1,
        contractId: "c-1",
        title: "Offer",
        createdAt: expect.any(String),
      });
      expect(answer.headers.get("location")).toBe("/v1/documents/1");
    });

    it("numbers are consecutive within a tenant, and tenants count on their own", async () => {
      const a = newTenant();
      const b = newTenant();
      const numbers = [];
      for (let i = 0; i < 3; i++) numbers.push((await post(a, { contractId: `c-${i}` })).json.docNumber);
      expect(numbers).toEqual([1, 2, 3]);
      expect((await post(b, { contractId: "c" })).json.docNumber).toBe(1);
      expect((await post(a, { contractId: "c" })).json.docNumber).toBe(4);
    });

    it("a retry with the same Idempotency-Key and body replays the original: no second number", async () => {
      const as = newTenant();
      const key = { "idempotency-key": unique("key") };
      const first = await post(as, { contractId: "c-1", title: "T" }, key);
      expectStatus(first, 201);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      const replay = await post(as, { title: "T", contractId: "c-1" }, key);
      expectStatus(replay, 201);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.json).toEqual(first.json);
      expect(replay.headers.get("location")).toBe(first.headers.get("location"));
      expect((await post(as, { contractId: "c-2" })).json.docNumber).toBe(2);
    });

    it("the same key with a different body: 422 idempotency_key_reused, nothing allocated", async () => {
      const as = newTenant();
      const key = { "idempotency-key": unique("key") };
      expectStatus(await post(as, { contractId: "c-1" }, key), 201);
      expectProblem(await post(as, { contractId: "c-other" }, key), 422, "idempotency_key_reused");
      expect((await post(as, { contractId: "c-2" })).json.docNumber).toBe(2);
    });

    it("keys are the caller's: another user's or tenant's same key is a new request, never a replay or a 422", async () => {
      const key = { "idempotency-key": unique("key") };
      const first = newTenant();
      expectStatus(await post(first, { contractId: "c" }, key), 201);
      for (const caller of [{ ...first, sub: "bob" }, newTenant()]) {
        const other = await post(caller, { contractId: "another" }, key);
        expectStatus(other, 201);
        expect(other.headers.get("idempotent-replayed")).toBeNull();
        expect(other.json.contractId).toBe("another");
      }
    });

    it("an unusable Idempotency-Key (over 255 or not visible ASCII): 400, nothing allocated", async () => {
      const as = newTenant();
      expectProblem(
        await post(as, { contractId: "c" }, { "idempotency-key": "k".repeat(256) }),
        400,
        "malformed_request",
      );
      expectProblem(await post(as, { contractId: "c" }, { "idempotency-key": "has space" }), 400, "malformed_request");
      expect((await post(as, { contractId: "c" })).json.docNumber).toBe(1);
    });

    it("GET /v1/documents/{docNumber}: 200, or 404 (absent, another tenant's, not a number)", async () => {
      const as = newTenant();
      const created = await post(as, { contractId: "c-1" });
      const got = await call("GET", "/v1/documents/1", { as });
      expectStatus(got, 200);
      expect(got.json).toEqual(created.json);
      expectProblem(await call("GET", "/v1/documents/2", { as }), 404, "not_found");
      expectProblem(await call("GET", "/v1/documents/1", { as: newTenant() }), 404, "not_found");
      expectProblem(await call("GET", "/v1/documents/abc", { as }), 404, "not_found");
    });

    it("GET /v1/documents pages by number with `next`", async () => {
      const as = newTenant();
      for (let i = 1; i <= 3; i++) expectStatus(await post(as, { contractId: `c-${i}` }), 201);
      const first = await call("GET", "/v1/documents?limit=2", { as });
      expectStatus(first, 200);
      expect(first.json.items.map((d: { docNumber: number }) => d.docNumber)).toEqual([1, 2]);
      expect(first.json.next).toBe(2);
      const second = await call("GET", `/v1/documents?after=${first.json.next}&limit=2`, { as });
      expect(second.json.items.map((d: { docNumber: number }) => d.docNumber)).toEqual([3]);
      expect(second.json.next).toBeNull();
      const all = await call("GET", "/v1/documents", { as });
      expect(all.json).toMatchObject({ next: null });
      expect(all.json.items).toHaveLength(3);
      expect((await call("GET", "/v1/documents", { as: newTenant() })).json).toEqual({ items: [], next: null });
    });

    it("GET /v1/documents refuses a limit outside 1..100: 422", async () => {
      const as = newTenant();
      for (const query of ["limit=0", "limit=101", "limit=abc", "after=-1"]) {
        expectProblem(await call("GET", `/v1/documents?${query}`, { as }), 422, "validation_failed");
      }
    });
  });
}
