// The assets' CSV import: each row its own conditional update, under the same version contract.
import { describe, expect, it } from "vitest";
import { type Call, expectProblem, expectStatus, freshTenant, unique } from "../client.ts";
import { assetCreator, etagOf, opaque } from "./assets.ts";

export function assetImportCases(call: Call) {
  describe("assets: the CSV import", () => {
    const as = { sub: "alice", tid: freshTenant() };
    const create = assetCreator(call, as);

    it("POST /v1/assets/import: each row its own conditional update, a stale row never overwrites", async () => {
      const fresh = await create({ name: "Old", material: "oak" });
      const locked = await create();
      const approved = await call("POST", `/v1/assets/${locked.id}/approve`, {
        as,
        headers: { "if-match": locked.etag },
      });
      expectStatus(approved, 200);
      const csv = [
        "id,name,material,source_etag",
        `${fresh.id},New,teak,${opaque(fresh.etag)}`,
        `${fresh.id},Stale,pine,${opaque(fresh.etag)}`,
        `${unique("absent")},Ghost,air,abc`,
        `${locked.id},Late,oak,${opaque(etagOf(approved))}`,
        `${fresh.id},,oak,${opaque(fresh.etag)}`,
      ].join("\n");
      const answer = await call("POST", "/v1/assets/import", {
        as,
        body: csv,
        headers: { "content-type": "text/csv" },
      });
      expectStatus(answer, 200);
      const results = answer.json.results as { line: number; id: string; outcome: string; etag?: string }[];
      expect(results.map(({ line, outcome }) => [line, outcome])).toEqual([
        [2, "updated"],
        [3, "conflict"],
        [4, "not_found"],
        [5, "locked"],
        [6, "invalid"],
      ]);
      expect(results[0]!.id).toBe(fresh.id);
      const current = await call("GET", `/v1/assets/${fresh.id}`, { as });
      expect(current.json).toMatchObject({ name: "New", material: "teak" });
      expect(opaque(results[0]!.etag!)).toBe(opaque(etagOf(current)));
      expect((await call("GET", `/v1/assets/${locked.id}`, { as })).json).toMatchObject({
        name: "Chair",
        status: "approved",
      });
    });

    it("POST /v1/assets/import refuses other media types, charsets or header=absent (415), a wrong header row (422), over 1,000 rows (413)", async () => {
      const csv = "id,name,material,source_etag\n";
      for (const contentType of ["application/json", "text/csv; charset=iso-8859-1", "text/csv; header=absent"]) {
        expectProblem(
          await call("POST", "/v1/assets/import", { as, body: csv, headers: { "content-type": contentType } }),
          415,
          "unsupported_media_type",
        );
      }
      const wrong = "id,title,source_etag\nx,y,z\n";
      expectProblem(
        await call("POST", "/v1/assets/import", { as, body: wrong, headers: { "content-type": "text/csv" } }),
        422,
        "validation_failed",
      );
      const tooMany = `id,name,material,source_etag\n${"x,y,z,abc\n".repeat(1001)}`;
      const refused = await call("POST", "/v1/assets/import", {
        as,
        body: tooMany,
        headers: { "content-type": "text/csv" },
      });
      expectProblem(refused, 413, "payload_too_large");
      expect(refused.json.maxRows).toBe(1000);
    });
  });
}
