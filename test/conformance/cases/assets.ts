// Assets: compare-and-set with strong ETags and If-Match (the CSV import: asset-import.ts).
import { describe, expect, it } from "vitest";
import type { TokenClaims } from "../../../dev/support/tokens.ts";
import { type Answer, type Call, expectProblem, expectStatus, freshTenant, unique } from "../client.ts";

const STRONG_ETAG = /^"[\x21\x23-\x7E]+"$/;
/** An ETag without its quotes, as a CSV row's source_etag names it. */
export const opaque = (etag: string) => etag.replace(/^"|"$/g, "");
export const etagOf = (answer: Answer) => {
  const etag = answer.headers.get("etag");
  expect(etag).toMatch(STRONG_ETAG);
  return etag!;
};

/** Creates assets as `as`: each one's id, ETag and answer. */
export const assetCreator =
  (call: Call, as: TokenClaims) =>
  async (fields = { name: "Chair", material: "oak" }) => {
    const answer = await call("POST", "/v1/assets", { as, body: fields });
    expectStatus(answer, 201);
    return { id: answer.json.id as string, etag: etagOf(answer), answer };
  };

export function assetCases(call: Call) {
  describe("assets", () => {
    const tenant = freshTenant();
    const as = { sub: "alice", tid: tenant };
    const otherTenant = { sub: "alice", tid: freshTenant() };

    const create = assetCreator(call, as);

    it("POST creates: 201, Location, strong ETag, the draft", async () => {
      const { answer, id } = await create();
      expect(answer.json).toEqual({
        id: expect.any(String),
        name: "Chair",
        material: "oak",
        status: "draft",
        updatedAt: expect.any(String),
      });
      expect(answer.headers.get("location")).toBe(`/v1/assets/${id}`);
    });

    it("POST with an Idempotency-Key: a retry answers the first 201 (Idempotent-Replayed), another body 422", async () => {
      const headers = { "idempotency-key": unique("create") };
      const fields = { name: "Stool", material: "pine" };
      const first = await call("POST", "/v1/assets", { as, body: fields, headers });
      expectStatus(first, 201);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      const retry = await call("POST", "/v1/assets", { as, body: fields, headers });
      expectStatus(retry, 201);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(retry.json).toEqual(first.json);
      expect(retry.headers.get("etag")).toBe(first.headers.get("etag"));
      expectProblem(
        await call("POST", "/v1/assets", { as, body: { ...fields, name: "Bench" }, headers }),
        422,
        "idempotency_key_reused",
      );
      // The key is the caller's: another user's or tenant's same key is a request of its own.
      for (const caller of [{ ...as, sub: "bob" }, otherTenant]) {
        const other = await call("POST", "/v1/assets", { as: caller, body: { ...fields, name: "Bench" }, headers });
        expectStatus(other, 201);
        expect(other.json.id).not.toBe(first.json.id);
      }
    });

    it("POST refuses bad fields (422) and other media types (415)", async () => {
      expectProblem(await call("POST", "/v1/assets", { as, body: { name: "Chair" } }), 422, "validation_failed");
      expectProblem(
        await call("POST", "/v1/assets", { as, body: { name: "", material: "oak" } }),
        422,
        "validation_failed",
      );
      const text = { body: "name=Chair", headers: { "content-type": "text/plain" } };
      expectProblem(await call("POST", "/v1/assets", { as, ...text }), 415, "unsupported_media_type");
    });

    it("ETags are opaque: no version counter, different per asset and per version", async () => {
      const a = await create();
      const b = await create();
      expect(a.etag).not.toBe(b.etag);
      expect(opaque(a.etag)).not.toMatch(/^\d{1,6}$/);
    });

    it("GET: 200 with the ETag; If-None-Match with it: 304; another tenant: 404", async () => {
      const { id, etag } = await create();
      const got = await call("GET", `/v1/assets/${id}`, { as });
      expectStatus(got, 200);
      expect(got.headers.get("etag")).toBe(etag);
      const notModified = await call("GET", `/v1/assets/${id}`, { as, headers: { "if-none-match": etag } });
      expectStatus(notModified, 304);
      expect(notModified.text).toBe("");
      expectStatus(await call("GET", `/v1/assets/${id}`, { as, headers: { "if-none-match": '"other"' } }), 200);
      expectProblem(await call("GET", `/v1/assets/${id}`, { as: otherTenant }), 404, "not_found");
      expectProblem(await call("GET", `/v1/assets/${unique("absent")}`, { as }), 404, "not_found");
    });

    it("PUT with If-None-Match: * creates with the given id (201), then 412 once it exists", async () => {
      const id = unique("asset");
      const put = (fields: object) =>
        call("PUT", `/v1/assets/${id}`, { as, body: fields, headers: { "if-none-match": "*" } });
      const created = await put({ name: "Desk", material: "pine" });
      expectStatus(created, 201);
      expect(created.json).toMatchObject({ id, name: "Desk", status: "draft" });
      expect(created.headers.get("location")).toBe(`/v1/assets/${id}`);
      etagOf(created);
      expectProblem(await put({ name: "Other", material: "x" }), 412, "precondition_failed");
      expect((await call("GET", `/v1/assets/${id}`, { as })).json.name).toBe("Desk");
    });

    it("PUT with If-Match replaces (200, new ETag); stale: 412; neither header, or If-None-Match listing ETags: 428", async () => {
      const { id, etag } = await create();
      const path = `/v1/assets/${id}`;
      expectProblem(await call("PUT", path, { as, body: { name: "X", material: "y" } }), 428, "precondition_required");
      // As the document says: not a precondition for PUT, which it would let overwrite any other version.
      for (const tags of ['"other"', `W/"other", "else"`]) {
        const blind = await call("PUT", path, {
          as,
          body: { name: "X", material: "y" },
          headers: { "if-none-match": tags },
        });
        expectProblem(blind, 428, "precondition_required");
      }
      const replaced = await call("PUT", path, {
        as,
        body: { name: "Stool", material: "ash" },
        headers: { "if-match": etag },
      });
      expectStatus(replaced, 200);
      expect(replaced.json).toMatchObject({ id, name: "Stool", material: "ash" });
      expect(etagOf(replaced)).not.toBe(etag);
      const stale = await call("PUT", path, {
        as,
        body: { name: "Lost", material: "update" },
        headers: { "if-match": etag },
      });
      expectProblem(stale, 412, "precondition_failed");
      expect((await call("GET", path, { as })).json.name).toBe("Stool");
    });

    describe("PATCH", () => {
      const patch = (id: string, body: unknown, headers: Record<string, string>) =>
        call("PATCH", `/v1/assets/${id}`, { as, body, headers });

      it("without If-Match: 428 precondition_required", async () => {
        const { id } = await create();
        expectProblem(await patch(id, { name: "x" }, {}), 428, "precondition_required");
      });

      it("with an unparseable If-Match: 400 malformed_request", async () => {
        const { id } = await create();
        expectProblem(await patch(id, { name: "x" }, { "if-match": "not-quoted" }), 400, "malformed_request");
      });

      it("with a stale or weak ETag: 412 precondition_failed, nothing changed", async () => {
        const { id, etag } = await create();
        const moved = await patch(id, { name: "Moved" }, { "if-match": etag });
        expectStatus(moved, 200);
        expectProblem(await patch(id, { name: "Lost" }, { "if-match": etag }), 412, "precondition_failed");
        expectProblem(
          await patch(id, { name: "Lost" }, { "if-match": `W/${etagOf(moved)}` }),
          412,
          "precondition_failed",
        );
        const current = await call("GET", `/v1/assets/${id}`, { as });
        expect(current.json.name).toBe("Moved");
        expect(current.headers.get("etag")).toBe(etagOf(moved));
      });

      it("reads a tag of non-ASCII bytes (obs-text) as any other: not the asset's, 412; beside its ETag, 200", async () => {
        const { id, etag } = await create();
        // Sent as the bytes c3 a9 80: "é" in UTF-8, then a byte that is not UTF-8.
        const obsText = `"${String.fromCharCode(0xc3, 0xa9, 0x80)}"`;
        expectProblem(await patch(id, { name: "x" }, { "if-match": obsText }), 412, "precondition_failed");
        expectStatus(await patch(id, { name: "Kept" }, { "if-match": `${obsText}, ${etag}` }), 200);
      });

      it("reads an empty If-Match or If-None-Match as absent: PATCH 428, GET 200", async () => {
        const { id } = await create();
        expectProblem(await patch(id, { name: "x" }, { "if-match": "" }), 428, "precondition_required");
        expectStatus(await call("GET", `/v1/assets/${id}`, { as, headers: { "if-none-match": "" } }), 200);
      });

      it("of an absent asset: 404, whatever the If-Match", async () => {
        expectProblem(await patch(unique("absent"), { name: "x" }, { "if-match": "*" }), 404, "not_found");
        expectProblem(await patch(unique("absent"), { name: "x" }, { "if-match": '"abc"' }), 404, "not_found");
      });

      it("of another tenant's asset: 404", async () => {
        const { id, etag } = await create();
        const answer = await call("PATCH", `/v1/assets/${id}`, {
          as: otherTenant,
          body: { name: "x" },
          headers: { "if-match": etag },
        });
        expectProblem(answer, 404, "not_found");
      });

      it("with the current ETag (merge-patch+json): 200, the new representation and a new ETag", async () => {
        const { id, etag } = await create({ name: "Lamp", material: "brass" });
        const answer = await call("PATCH", `/v1/assets/${id}`, {
          as,
          body: JSON.stringify({ material: "copper" }),
          headers: { "if-match": etag, "content-type": "application/merge-patch+json" },
        });
        expectStatus(answer, 200);
        expect(answer.json).toMatchObject({ id, name: "Lamp", material: "copper", status: "draft" });
        expect(etagOf(answer)).not.toBe(etag);
      });

      it("with If-Match: * on an existing asset: 200", async () => {
        const { id } = await create();
        expectStatus(await patch(id, { name: "Any" }, { "if-match": "*" }), 200);
      });

      it("with invalid fields (422) or another media type (415)", async () => {
        const { id, etag } = await create();
        expectProblem(await patch(id, { name: "" }, { "if-match": etag }), 422, "validation_failed");
        expectProblem(await patch(id, { colour: "red" }, { "if-match": etag }), 422, "validation_failed");
        expectProblem(
          await patch(id, "name=x", { "if-match": etag, "content-type": "text/plain" }),
          415,
          "unsupported_media_type",
        );
        expect((await call("GET", `/v1/assets/${id}`, { as })).headers.get("etag")).toBe(etag);
      });
    });

    it("approve with If-Match: 200 approved; later edits: 409 asset_locked", async () => {
      const { id, etag } = await create();
      const path = `/v1/assets/${id}`;
      expectProblem(await call("POST", `${path}/approve`, { as }), 428, "precondition_required");
      const approved = await call("POST", `${path}/approve`, { as, headers: { "if-match": etag } });
      expectStatus(approved, 200);
      expect(approved.json).toMatchObject({ id, status: "approved" });
      const current = etagOf(approved);
      expect(current).not.toBe(etag);
      const locked = await call("PATCH", path, { as, body: { name: "x" }, headers: { "if-match": current } });
      expectProblem(locked, 409, "asset_locked");
      const replaced = await call("PUT", path, {
        as,
        body: { name: "x", material: "y" },
        headers: { "if-match": current },
      });
      expectProblem(replaced, 409, "asset_locked");
    });

    it("DELETE with If-Match: 428 without, 412 stale, 204 current, then 404", async () => {
      const { id, etag } = await create();
      const path = `/v1/assets/${id}`;
      expectProblem(await call("DELETE", path, { as }), 428, "precondition_required");
      expectProblem(await call("DELETE", path, { as, headers: { "if-match": '"stale"' } }), 412, "precondition_failed");
      expectProblem(await call("DELETE", path, { as: otherTenant, headers: { "if-match": etag } }), 404, "not_found");
      const deleted = await call("DELETE", path, { as, headers: { "if-match": etag } });
      expectStatus(deleted, 204);
      expectProblem(await call("GET", path, { as }), 404, "not_found");
      expectProblem(await call("DELETE", path, { as, headers: { "if-match": etag } }), 404, "not_found");
    });
  });
}
