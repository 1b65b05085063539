// Conditional requests on assets as real clients and proxies send them (RFC 9110 §13): lists of
// tags, weak tags, `*`, a field on several lines, both fields at once, dates.
import { describe, expect, it } from "vitest";
import { bearer } from "../../../dev/support/tokens.ts";
import { type Call, expectProblem, expectStatus, freshTenant, unique } from "../client.ts";
import { rawRequest } from "../raw-request.ts";
import { assetCreator, etagOf } from "./assets.ts";

export function preconditionCases(call: Call, baseUrl: () => string) {
  describe("preconditions", () => {
    const as = { sub: "alice", tid: freshTenant() };
    const create = assetCreator(call, as);
    const patch = (id: string, body: unknown, headers: Record<string, string>) =>
      call("PATCH", `/v1/assets/${id}`, { as, body, headers });

    it("GET and HEAD compare If-None-Match weakly (W/ and * match too) and If-Match strongly", async () => {
      const { id, etag } = await create();
      const path = `/v1/assets/${id}`;
      for (const method of ["GET", "HEAD"]) {
        for (const ifNoneMatch of [`W/${etag}`, "*", `"other", ${etag}`, `W/"other",W/${etag}`]) {
          const answer = await call(method, path, { as, headers: { "if-none-match": ifNoneMatch } });
          expectStatus(answer, 304);
          expect(answer.headers.get("etag")).toBe(etag);
          expect(answer.text).toBe("");
        }
        expectStatus(await call(method, path, { as, headers: { "if-match": `"other", ${etag}` } }), 200);
        expectStatus(await call(method, path, { as, headers: { "if-match": "*" } }), 200);
        expectStatus(await call(method, path, { as, headers: { "if-match": `W/${etag}` } }), 412);
      }
      // Both: If-Match first (RFC 9110 §13.2.2), then If-None-Match.
      expectStatus(await call("GET", path, { as, headers: { "if-match": etag, "if-none-match": etag } }), 304);
      const stale = await call("GET", path, { as, headers: { "if-match": '"other"', "if-none-match": etag } });
      expectProblem(stale, 412, "precondition_failed");
      expect(stale.json.detail).toBe("The asset is not at a version If-Match names.");
    });

    it("If-Match with a list of tags: 200 when one is the asset's strong ETag, whatever the others and the spacing", async () => {
      const { id, etag: first } = await create();
      let etag = first;
      const lists = [(e: string) => `"a", ${e}`, (e: string) => `W/"b" ,${e},`, (e: string) => ` ,, ${e} , "c"`];
      for (const list of [...lists, (e: string) => `"x,y", ${e}`]) {
        const answer = await patch(id, { name: "Listed" }, { "if-match": list(etag) });
        expectStatus(answer, 200);
        etag = etagOf(answer);
      }
      expectProblem(await patch(id, { name: "x" }, { "if-match": `"a", W/${etag}` }), 412, "precondition_failed");
      // `*` is the whole field or nothing; a tag is quoted, and `W/` is upper case.
      for (const malformed of [`*, ${etag}`, `${etag} ${etag}`, etag.slice(1), `w/${etag}`]) {
        expectProblem(await patch(id, { name: "x" }, { "if-match": malformed }), 400, "malformed_request");
      }
    });

    it("If-Match on several lines is one list: the asset's ETag on either matches", async () => {
      const { id, etag } = await create();
      const { authorization } = await bearer(as);
      const lines = (...ifMatch: string[]) =>
        `DELETE /v1/assets/${id} HTTP/1.1\r\nHost: ${new URL(baseUrl()).host}\r\nAuthorization: ${authorization}\r\n` +
        ifMatch.map((value) => `If-Match: ${value}\r\n`).join("") +
        "Connection: close\r\n\r\n";
      expect((await rawRequest(baseUrl(), lines('"stale"', '"older"'))).status).toBe(412);
      expect((await rawRequest(baseUrl(), lines('"stale"', etag))).status).toBe(204);
      expectProblem(await call("GET", `/v1/assets/${id}`, { as }), 404, "not_found");
    });

    it("PUT: an If-None-Match naming tags neither creates nor replaces (428); If-Match on no asset: 404, nothing made", async () => {
      const { id } = await create();
      const fields = { name: "Blind", material: "write" };
      for (const target of [id, unique("new")]) {
        const tagged = await call("PUT", `/v1/assets/${target}`, {
          as,
          body: fields,
          headers: { "if-none-match": '"abc"' },
        });
        expectProblem(tagged, 428, "precondition_required");
      }
      const absent = `/v1/assets/${unique("absent")}`;
      for (const ifMatch of ["*", '"abc"']) {
        const put = await call("PUT", absent, { as, body: fields, headers: { "if-match": ifMatch } });
        expectProblem(put, 404, "not_found");
      }
      expectProblem(await call("GET", absent, { as }), 404, "not_found");
    });

    it("dates are no validators: If-Unmodified-Since and If-Modified-Since are ignored, a write still needs If-Match", async () => {
      const { id, etag, answer } = await create();
      expect(answer.headers.get("last-modified")).toBeNull();
      const path = `/v1/assets/${id}`;
      const future = "Fri, 01 Jan 2100 00:00:00 GMT";
      const past = { "if-unmodified-since": "Sat, 01 Jan 2000 00:00:00 GMT" };
      expectStatus(await call("GET", path, { as, headers: past }), 200);
      expectStatus(await call("GET", path, { as, headers: { "if-modified-since": future } }), 200);
      const dated = { "if-unmodified-since": future };
      expectProblem(await patch(id, { name: "x" }, dated), 428, "precondition_required");
      expectProblem(await call("DELETE", path, { as, headers: dated }), 428, "precondition_required");
      expectStatus(await patch(id, { name: "y" }, { ...past, "if-match": etag }), 200);
    });

    it("POST /v1/assets and its import with If-Match: 412, nothing done; with If-None-Match: * as without", async () => {
      const body = { name: unique("conditional-create"), material: "oak" };
      const key = { "idempotency-key": unique("key") };
      for (const ifMatch of ["*", '"abc"']) {
        const refused = await call("POST", "/v1/assets", { as, body, headers: { ...key, "if-match": ifMatch } });
        expectProblem(refused, 412, "precondition_failed");
        const csv = "id,name,material,source_etag\n";
        const headers = { "content-type": "text/csv", "if-match": ifMatch };
        expectProblem(await call("POST", "/v1/assets/import", { as, body: csv, headers }), 412, "precondition_failed");
      }
      // Nothing was kept of the refused requests, their key included: its first use creates.
      const created = await call("POST", "/v1/assets", { as, body, headers: { ...key, "if-none-match": "*" } });
      expectStatus(created, 201);
      expect(created.headers.get("idempotent-replayed")).toBeNull();
      expect(created.json.name).toBe(body.name);
    });
  });
}
