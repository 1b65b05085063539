// Query parameters a route does not take: refused on every operation of the document (422 naming
// the parameter and those the route takes), before anything is read or written;
// an empty query is none; the probes and a browser's preflight take any.
import { describe, expect, it } from "vitest";
import { type Call, expectProblem, expectStatus, freshTenant, httpClient, unique } from "../client.ts";
import type { OpenApi } from "../openapi-check.ts";
import { CONFORMANCE_CORS_ORIGINS } from "./cors.ts";

const REFUSED = "is not a query parameter of this route";

/** `baseUrl`: a preflight goes through a client of its own, since the document describes no OPTIONS. */
export function queryCases(call: Call, baseUrl: () => string) {
  describe("query parameters a route does not take", () => {
    it("every operation but the probes refuses one: 422 naming it, which its document lists", async () => {
      const document = (await call("GET", "/openapi.json", { as: null })).json as OpenApi;
      const as = { sub: "alice", tid: freshTenant(), role: "admin" as const };
      for (const [template, operations] of Object.entries(document.paths)) {
        const path = template.replace(/\{[^}]+\}/g, "1");
        for (const method of Object.keys(operations).map((name) => name.toUpperCase())) {
          const answer = await call(method, `${path}?unknown_parameter=1`, { as });
          const context = `${method} ${path} → ${answer.status} ${answer.text.slice(0, 300)}`;
          if (template === "/healthz" || template === "/readyz") {
            expect(answer.status, context).toBe(200);
            continue;
          }
          expectProblem(answer, 422, "validation_failed");
          expect(answer.json.errors, context).toEqual([
            { field: "unknown_parameter", message: expect.stringMatching(new RegExp(`^${REFUSED}, which takes`)) },
          ]);
        }
      }
    });

    it("a misspelt cursor is refused, naming those the list takes, never answered as the first page", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      for (const contractId of ["C-1", "C-2"])
        expectStatus(await call("POST", "/v1/documents", { as, body: { contractId } }), 201);
      const first = await call("GET", "/v1/documents?limit=1", { as });
      expect(first.json.next).toBe(1);
      for (const name of ["cursor", "page", "offset", "afer"]) {
        const refused = await call("GET", `/v1/documents?limit=1&${name}=${first.json.next}`, { as });
        expectProblem(refused, 422, "validation_failed");
        expect(refused.json.errors).toEqual([
          { field: name, message: `${REFUSED}, which takes \`after\` and \`limit\`` },
        ]);
      }
      const second = await call("GET", `/v1/documents?limit=1&after=${first.json.next}`, { as });
      expect(second.json.items.map((item: { docNumber: number }) => item.docNumber)).toEqual([2]);
    });

    it("a misspelt consistency is refused, never read from the cache", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const path = `/v1/links/github/${unique("query")}`;
      expectStatus(await call("PUT", path, { as }), 201);
      const refused = await call("GET", `${path}?consistancy=strong`, { as });
      expectProblem(refused, 422, "validation_failed");
      expect(refused.json.errors).toEqual([
        { field: "consistancy", message: `${REFUSED}, which takes \`consistency\`` },
      ]);
      const strong = await call("GET", `${path}?consistency=strong`, { as });
      expect([strong.status, strong.headers.get("x-link-source")]).toEqual([200, "db"]);
    });

    it("a write with one changes nothing; a HEAD is refused as its GET, without a body", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const path = `/v1/links/github/${unique("query")}`;
      expectProblem(await call("PUT", `${path}?dry_run=1`, { as }), 422, "validation_failed");
      expectProblem(await call("GET", path, { as }), 404, "not_found");
      const created = await call("POST", "/v1/documents?idempotency_key=k", { as, body: { contractId: "C-1" } });
      expectProblem(created, 422, "validation_failed");
      expect((await call("GET", "/v1/documents", { as })).json.items).toEqual([]);
      const head = await call("HEAD", "/v1/documents?sort=desc", { as });
      expect([head.status, head.text]).toEqual([422, ""]);
    });

    it("a value under no name is refused; a parameter given twice is refused once, as given twice", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const nameless = await call("GET", "/v1/me/links?=2", { as });
      expectProblem(nameless, 422, "validation_failed");
      expect(nameless.json.errors).toEqual([{ field: "", message: "is a query parameter without a name" }]);
      const twice = await call("GET", "/v1/me/links?limit=1&limit=2", { as });
      expect(twice.json.errors).toEqual([{ field: "limit", message: "must be given once" }]);
    });

    it("an empty query (`?` alone, or `&` alone) is none; the probes and a preflight take any", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      for (const path of ["/v1/me/links?", "/v1/me/links?&", "/openapi.json?"])
        expectStatus(await call("GET", path, { as }), 200);
      for (const path of ["/healthz?t=1700000000", "/readyz?nocache", "/healthz?=x"]) {
        expectStatus(await call("GET", path, { as: null }), 200);
      }
      const preflight = await httpClient(baseUrl)("OPTIONS", "/v1/documents?cursor=1", {
        as: null,
        headers: { origin: CONFORMANCE_CORS_ORIGINS[0]!, "access-control-request-method": "GET" },
      });
      expectStatus(preflight, 204);
    });
  });
}
