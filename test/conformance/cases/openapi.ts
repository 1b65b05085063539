// The OpenAPI document: served by every runtime, the same everywhere, naming every operation.
import { describe, expect, it } from "vitest";
import { appWithoutDatabase } from "../../../dev/support/app-without-database.ts";
import { routes } from "../../support/routes.ts";
import { type Call, expectProblem, expectStatus } from "../client.ts";

export function openApiCases(call: Call) {
  describe("OpenAPI document", () => {
    it("GET /openapi.json: OpenAPI 3.1, without a token, with every route core declares", async () => {
      const answer = await call("GET", "/openapi.json", { as: null });
      expectStatus(answer, 200);
      expect(answer.json.openapi).toBe("3.1.0");
      const served = Object.entries(answer.json.paths as Record<string, object>).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      );
      const declared = routes.map(({ method, pattern }) => `${method} ${pattern.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`);
      expect(served.sort()).toEqual(declared.sort());
    });

    it("is the document core generates, on every runtime (the Fastly build embeds its own copy)", async () => {
      const { json: served } = await call("GET", "/openapi.json", { as: null });
      const generated = await appWithoutDatabase().request("/openapi.json");
      expect(served).toEqual(await generated.json());
    });

    it("names bearer security, the conditional and idempotency headers, and every problem code a route answers", async () => {
      const { json: document } = await call("GET", "/openapi.json", { as: null });
      expect(document.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
      const parameters = (path: string, method: string) =>
        (document.paths[path][method].parameters as { name: string; in: string }[]).map((p) => `${p.in}:${p.name}`);
      expect(parameters("/v1/assets/{id}", "get")).toEqual(
        expect.arrayContaining(["header:if-match", "header:if-none-match", "path:id"]),
      );
      expect(parameters("/v1/documents", "post")).toContain("header:idempotency-key");
      const patch = document.paths["/v1/assets/{id}"].patch.responses;
      expect(Object.keys(patch)).toEqual(
        expect.arrayContaining(["200", "400", "401", "404", "409", "412", "415", "422", "428", "503"]),
      );
      expect(patch["409"].content["application/problem+json"].schema.allOf[1].properties.code.enum).toEqual([
        "asset_locked",
      ]);
    });

    it("other methods: 405 with Allow", async () => {
      const answer = await call("POST", "/openapi.json", { as: null, body: "" });
      expectProblem(answer, 405, "method_not_allowed");
      expect(answer.headers.get("allow")).toBe("GET, HEAD");
    });
  });
}
