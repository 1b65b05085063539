// HTTP conventions every route shares: methods, codings, patch formats, authentication challenges
// and what "characters" means (requests that are not valid HTTP at all: malformed-http.ts).
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { RuntimeName } from "../../../dev/launchers/index.ts";
import { bearer } from "../../../dev/support/tokens.ts";
import { type Call, expectProblem, expectStatus, freshTenant, unique } from "../client.ts";
import { type OpenApi, violations } from "../openapi-check.ts";
import { rawRequest } from "../raw-request.ts";

const emoji = (count: number) => "😀".repeat(count);

export function conventionCases(call: Call, runtime: RuntimeName, baseUrl: () => string) {
  describe("methods", () => {
    it("/healthz and /readyz answer other methods with 405 and Allow", async () => {
      for (const [method, path] of [
        ["POST", "/healthz"],
        ["DELETE", "/readyz"],
        ["PUT", "/healthz"],
      ] as const) {
        const answer = await call(method, path, { as: null, body: method === "DELETE" ? undefined : "" });
        expectProblem(answer, 405, "method_not_allowed");
        expect(answer.headers.get("allow")).toBe("GET, HEAD");
      }
    });

    // fetch cannot send either. CONNECT reaches the API only on Node, whose server is the API's
    // own: workerd's front end answers it 500 ("Incoming CONNECT on a worker not supported") after
    // seconds, Deno's holds it open as a tunnel, as production's edges do not pass it on either.
    // QUERY (RFC 10008) is a standard method the API serves nowhere: 405 like TRACE, not 501.
    const methods = runtime === "node" ? ["TRACE", "CONNECT", "QUERY"] : ["TRACE", "QUERY"];
    it(`${methods.join(" and ")} on every documented path: 405 with the path's Allow, never 501`, async () => {
      const document = (await call("GET", "/openapi.json", { as: null })).json as OpenApi;
      const authorization = (await bearer({ tid: freshTenant() })).authorization;
      for (const template of Object.keys(document.paths)) {
        const path = template.replace(/\{[^}]+\}/g, "1");
        for (const method of methods) {
          const request = `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${authorization}\r\nConnection: close\r\n\r\n`;
          const answer = await rawRequest(baseUrl(), request);
          const context = `${method} ${path} → ${answer.text.slice(0, 300)}`;
          expect(answer.status, context).toBe(405);
          const exchange = { method, url: new URL(path, baseUrl()).href, status: 405, text: answer.body };
          expect(violations(document, { ...exchange, headers: new Headers(answer.headers) }), context).toEqual([]);
        }
      }
    });

    if (runtime === "node") {
      it("CONNECT naming an authority (host:port): the API tunnels nothing, 405 with an empty Allow", async () => {
        const answer = await rawRequest(baseUrl(), "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
        expect(answer.status).toBe(405);
        expect(answer.headers.allow).toBe("");
        expect(JSON.parse(answer.body)).toMatchObject({ code: "method_not_allowed" });
      });
    }

    it("one trailing slash names the same path; an empty segment names nothing (404)", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const id = unique("slash");
      expectStatus(await call("PUT", `/v1/links/github/${id}/`, { as }), 201);
      expectStatus(await call("GET", `/v1/links/github/${id}/`, { as }), 200);
      for (const path of [`/v1/links/github/${id}//`, `/v1/links/github//${id}`, "/healthz//", "/v1//me/links"]) {
        expectProblem(await call("GET", path, { as }), 404, "not_found");
      }
    });

    it("a method no route implements: 501 not_implemented, before authentication", async () => {
      expectProblem(await call("PROPFIND", "/healthz", { as: null }), 501, "not_implemented");
      expectProblem(await call("PROPFIND", "/v1/me/links", { as: null }), 501, "not_implemented");
    });

    it("/v1/assets/import, a path the asset operations also name, is the import, never an asset: 405 with Allow: POST", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const fields = { name: "Chair", material: "oak" };
      for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
        const body = method === "GET" || method === "DELETE" ? undefined : fields;
        // Each with the precondition its asset operation would need.
        const precondition: Record<string, string> = method === "PUT" ? { "if-none-match": "*" } : { "if-match": "*" };
        const answer = await call(method, "/v1/assets/import", { as, body, headers: precondition });
        expectProblem(answer, 405, "method_not_allowed");
        expect(answer.headers.get("allow")).toBe("POST");
      }
    });
  });

  describe("request bodies", () => {
    it("a Content-Encoding other than identity: 415 naming identity, nothing written", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const body = gzipSync(JSON.stringify({ contractId: "c" }));
      const headers = { "content-type": "application/json", "content-encoding": "gzip" };
      const refused = await call("POST", "/v1/documents", { as, body, headers });
      expectProblem(refused, 415, "unsupported_media_type");
      expect(refused.headers.get("accept-encoding")).toBe("identity");
      const identity = { "content-type": "application/json", "content-encoding": "identity" };
      const created = await call("POST", "/v1/documents", { as, body: '{"contractId":"c"}', headers: identity });
      expectStatus(created, 201);
      expect(created.json.docNumber).toBe(1);
    });

    // js-compute's own types say its TextDecoder is never fatal: were it so, Fastly would store U+FFFD.
    it("a body that is not UTF-8 (a Latin-1 CSV export): 400, never read with U+FFFD", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const body = Uint8Array.from("id,name,material,source_etag\nx,M\xfcller,oak,e\n", (c) => c.charCodeAt(0));
      const refused = await call("POST", "/v1/assets/import", { as, body, headers: { "content-type": "text/csv" } });
      expect(expectProblem(refused, 400, "malformed_request").detail).toBe("The body is not valid UTF-8.");
    });

    it("a PATCH in an unsupported media type: 415 with Accept-Patch", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const created = await call("POST", "/v1/assets", { as, body: { name: "Chair", material: "oak" } });
      expectStatus(created, 201);
      const headers = { "content-type": "text/plain", "if-match": created.headers.get("etag")! };
      const answer = await call("PATCH", `/v1/assets/${created.json.id}`, { as, body: "name=Stool", headers });
      expectProblem(answer, 415, "unsupported_media_type");
      expect(answer.headers.get("accept-patch")).toBe("application/json, application/merge-patch+json");
    });

    it("a media type is matched without its parameters and its case; a +json type is not JSON's (415)", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const body = '{"contractId":"c"}';
      for (const type of [
        "application/json; charset=utf-8",
        'Application/JSON;Charset="UTF-8"',
        "application/json ; x=y",
      ]) {
        expectStatus(await call("POST", "/v1/documents", { as, body, headers: { "content-type": type } }), 201);
      }
      for (const type of ["application/vnd.api+json", "application/problem+json", "text/json", ""]) {
        const refused = await call("POST", "/v1/documents", { as, body, headers: { "content-type": type } });
        expectProblem(refused, 415, "unsupported_media_type");
      }
      expect((await call("GET", "/v1/documents", { as })).json.items).toHaveLength(3);
    });

    it("a member one JSON object names twice: 422 must be given once, nothing written", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const headers = { "content-type": "application/json" };
      const body = '{"contractId":"first","contractId":"second"}';
      const refused = await call("POST", "/v1/documents", { as, body, headers });
      expectProblem(refused, 422, "validation_failed");
      expect(refused.json.errors).toEqual([{ field: "contractId", message: "must be given once" }]);
      const patch = { "content-type": "application/merge-patch+json", "if-match": "*" };
      const asset = await call("POST", "/v1/assets", { as, body: { name: "Chair", material: "oak" } });
      const twice = '{"name":"Stool","material":"ash","name":"Bench"}';
      expectProblem(
        await call("PATCH", `/v1/assets/${asset.json.id}`, { as, body: twice, headers: patch }),
        422,
        "validation_failed",
      );
      expect((await call("GET", "/v1/documents", { as })).json.items).toEqual([]);
      expect((await call("GET", `/v1/assets/${asset.json.id}`, { as })).json.name).toBe("Chair");
    });
  });

  describe("caching", () => {
    it("every answer under /v1, 304s and problems included, is Cache-Control: no-store", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const created = await call("POST", "/v1/assets", { as, body: { name: "Chair", material: "oak" } });
      const path = `/v1/assets/${created.json.id}`;
      const etag = created.headers.get("etag")!;
      const answers = [
        created,
        await call("GET", path, { as }),
        await call("HEAD", path, { as }),
        await call("GET", path, { as, headers: { "if-none-match": etag } }),
        await call("GET", "/v1/documents", { as }),
        await call("GET", "/v1/me/links", { as }),
        await call("GET", `/v1/links/github/${unique("absent")}`, { as }),
        await call("GET", path, { as: { ...as, tid: freshTenant() } }),
        await call("GET", path, { as: null }),
        await call("POST", path, { as }),
        await call("GET", "/v1/nothing-here", { as }),
        // Refused before the token is read: a path with an empty segment names nothing.
        await call("GET", "/v1//assets", { as: null }),
      ];
      const statuses = [201, 200, 200, 304, 200, 200, 404, 404, 401, 405, 404, 404];
      expect(answers.map((answer) => answer.status)).toEqual(statuses);
      for (const answer of answers) expect(answer.headers.get("cache-control"), answer.text).toBe("no-store");
    });
  });

  describe("characters are code points", () => {
    it("asset names and materials: 200 emoji pass, 201 do not", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      expectStatus(await call("POST", "/v1/assets", { as, body: { name: emoji(200), material: emoji(200) } }), 201);
      const tooLong = await call("POST", "/v1/assets", { as, body: { name: emoji(201), material: "oak" } });
      expectProblem(tooLong, 422, "validation_failed");
    });

    it("contractId: 128 emoji pass, 129 do not; title: 200 pass, 201 do not", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      expectStatus(
        await call("POST", "/v1/documents", { as, body: { contractId: emoji(128), title: emoji(200) } }),
        201,
      );
      expectProblem(
        await call("POST", "/v1/documents", { as, body: { contractId: emoji(129) } }),
        422,
        "validation_failed",
      );
      const longTitle = { contractId: "c", title: emoji(201) };
      expectProblem(await call("POST", "/v1/documents", { as, body: longTitle }), 422, "validation_failed");
    });

    it("link display names: 200 emoji pass, 201 do not", async () => {
      const as = { sub: unique("u"), tid: freshTenant() };
      const path = `/v1/links/github/${unique("emoji")}`;
      expectProblem(await call("PUT", path, { as, body: { displayName: emoji(201) } }), 422, "validation_failed");
      expectStatus(await call("PUT", path, { as, body: { displayName: emoji(200) } }), 201);
    });
  });

  describe("ids that could never be reached", () => {
    it("a link id that trims to . or .. is refused (422): its Location would name another URL", async () => {
      const as = { sub: unique("u"), tid: freshTenant() };
      for (const id of ["%20.%20", "%20..", "%2E%20"]) {
        expectProblem(await call("PUT", `/v1/links/github/${id}`, { as }), 422, "validation_failed");
      }
    });

    it("asset ids ., .. and import are refused by the CSV import", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const csv = "id,name,material,source_etag\n.,A,oak,x\n..,B,oak,x\nimport,C,oak,x\n";
      const answer = await call("POST", "/v1/assets/import", {
        as,
        body: csv,
        headers: { "content-type": "text/csv" },
      });
      expectStatus(answer, 200);
      expect(answer.json.results.map((row: { outcome: string }) => row.outcome)).toEqual([
        "invalid",
        "invalid",
        "invalid",
      ]);
    });
  });

  describe("authentication challenges (RFC 6750)", () => {
    it("no token: a Bearer challenge without an error code", async () => {
      const answer = await call("GET", "/v1/me/links", { as: null });
      expectProblem(answer, 401, "unauthorized");
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="api"');
    });

    it('a refused token: error="invalid_token"', async () => {
      const answer = await call("GET", "/v1/me/links", { as: "Bearer not.a.jwt" });
      expectProblem(answer, 401, "unauthorized");
      expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer realm="api", error="invalid_token"/);
    });

    it("a sub with a lone surrogate is refused, not merged with another user", async () => {
      const tid = freshTenant();
      for (const sub of ["alice\ud800", "alice\udfff"]) {
        const answer = await call("GET", "/v1/me/links", { as: { sub, tid } });
        expectProblem(answer, 401, "unauthorized");
        expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"');
      }
      expectStatus(await call("GET", "/v1/me/links", { as: { sub: "alice\ufffd", tid } }), 200);
    });
  });
}
