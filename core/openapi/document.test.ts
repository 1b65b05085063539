import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { appWithoutDatabase } from "../../dev/support/app-without-database.ts";
import { CAPABILITIES } from "../capabilities.ts";
import { describedOperations, openApiDocument, openApiPath, routeKey, servedRoutes } from "./document.ts";

const app = appWithoutDatabase();

const documentedOperations = (document: ReturnType<typeof openApiDocument>) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );

describe("the OpenAPI document", () => {
  it("documents every route of the app's route table, and no route it does not serve", () => {
    const served = servedRoutes(app.routes);
    expect(served.length).toBeGreaterThan(15);
    const expected = served.map((route) => `${route.method} ${openApiPath(route.path)}`);
    expect(documentedOperations(openApiDocument(app.routes)).sort()).toEqual(expected.sort());
    expect([...describedOperations().keys()].sort()).toEqual(served.map(routeKey).sort());
  });

  it("a route added without a description is missing from the document, so the comparison above fails", () => {
    const extended = new Hono().route("/", app).get("/v1/undocumented", (c) => c.text("x"));
    const document = openApiDocument(extended.routes);
    expect(servedRoutes(extended.routes).map(routeKey)).toContain("GET /v1/undocumented");
    expect(documentedOperations(document)).not.toContain("GET /v1/undocumented");
  });

  it("lists each capability's tag once, and every schema an operation refers to", () => {
    const document = openApiDocument(app.routes);
    expect(document.tags.map((tag) => tag.name)).toEqual([
      ...new Set(CAPABILITIES.map((capability) => capability.tag)),
    ]);
    const refs = JSON.stringify(document.paths).match(/#\/components\/schemas\/[A-Za-z]+/g) ?? [];
    const named = refs.map((ref) => ref.split("/").pop()!);
    expect(named.length).toBeGreaterThan(15);
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining([...new Set(named)]));
  });

  it("refuses two capabilities that describe the same route or name the same schema", () => {
    const [health, links] = CAPABILITIES as [(typeof CAPABILITIES)[number], (typeof CAPABILITIES)[number]];
    expect(() =>
      openApiDocument(app.routes, [health, { ...links, operations: health.operations, schemas: {} }]),
    ).toThrow("two capabilities describe GET /healthz");
    expect(() => openApiDocument(app.routes, [health, { ...links, operations: {}, schemas: health.schemas }])).toThrow(
      "two capabilities name the schema Health",
    );
  });

  it("is served at /openapi.json, OpenAPI 3.1 with bearer security, public operations exempt", async () => {
    const response = await app.request("/openapi.json");
    expect(response.status).toBe(200);
    const document = await response.json();
    expect(document).toMatchObject({ openapi: "3.1.0", security: [{ bearer: [] }] });
    expect(document.paths["/healthz"].get.security).toEqual([]);
    expect(document.paths["/v1/me/links"].get.security).toBeUndefined();
  });

  it("counts characters in code points, as the routes do", () => {
    const document = openApiDocument(app.routes);
    const body = document.paths["/v1/documents"]!.post as { requestBody: { content: Record<string, { schema: any }> } };
    expect(body.requestBody.content["application/json"]!.schema.properties.contractId.maxLength).toBe(128);
  });
});
